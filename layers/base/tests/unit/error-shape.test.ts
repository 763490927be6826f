import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isStatementTimeout, shapeClientErrorData } from '../../core/error-shape'

describe('the one 4xx shape', () => {
  it('keeps a route\'s own code and details, and adds the message from its status message', () => {
    expect(shapeClientErrorData({ statusCode: 429, statusMessage: 'Too many failed sign-ins.', data: { code: 'too_many_attempts', retryAfterSeconds: 60 } }))
      .toEqual({ code: 'too_many_attempts', message: 'Too many failed sign-ins.', retryAfterSeconds: 60 })
  })

  it('turns h3\'s Validation Error (a ZodError, or its serialised message) into issues', () => {
    const zodError = z.object({ email: z.string(), age: z.number() }).safeParse({ age: 'x' }).error!
    const shaped = shapeClientErrorData({ statusCode: 400, statusMessage: 'Validation Error', message: zodError.message, data: zodError })
    expect(shaped).toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^email: .*\(and 1 more\)$/) })
    expect(shaped!.issues!.map(issue => issue.path)).toEqual(['email', 'age'])
    expect(shaped!.message).not.toMatch(/^\s*\[/)
    const fromText = shapeClientErrorData({ statusCode: 400, data: { message: zodError.message } })
    expect(fromText!.issues).toHaveLength(2)
  })

  it('names a code after the status when the thrower gave none, and leaves a 5xx alone', () => {
    expect(shapeClientErrorData({ statusCode: 404, statusMessage: 'Page not found: /api/nope' })).toEqual({ code: 'not_found', message: 'Page not found: /api/nope' })
    expect(shapeClientErrorData({ statusCode: 400, message: 'Invalid JSON body' })).toEqual({ code: 'bad_request', message: 'Invalid JSON body' })
    expect(shapeClientErrorData({ statusCode: 418 })).toEqual({ code: 'http_418', message: 'http 418' })
    expect(shapeClientErrorData({ statusCode: 500, data: { secret: 1 } })).toBeNull()
  })

  it('finds PostgreSQL\'s statement timeout through the causes a driver and drizzle wrap it in', () => {
    const timeout = Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })
    expect(isStatementTimeout(new Error('Failed query', { cause: new Error('x', { cause: timeout }) }))).toBe(true)
    expect(isStatementTimeout(new Error('other', { cause: { code: '23505' } }))).toBe(false)
  })
})

describe('a route\'s own 400', () => {
  it('keeps its code, field and issues as the route wrote them', () => {
    const issues = [{ path: 'name', code: 'too_big', message: 'Too big' }]
    expect(shapeClientErrorData({ statusCode: 400, statusMessage: 'name: Too big', data: { code: 'too_long', field: 'name', issues } }))
      .toEqual({ code: 'too_long', message: 'name: Too big', field: 'name', issues })
  })
})
