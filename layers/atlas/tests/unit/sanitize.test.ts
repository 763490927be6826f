import { describe, expect, it } from 'vitest'
import { EMAIL_FRAME_CSP, sanitizeEmailHtml } from '../../core/sanitize'

describe('email HTML for the hub', () => {
  it('removes scripts, event handlers, frames, forms and javascript: links', () => {
    const { html } = sanitizeEmailHtml(`<p onclick="steal()">Bonjour<script>alert(1)</script></p>
      <a href="javascript:alert(1)">x</a><iframe src="https://evil.example"></iframe><form action="https://evil.example"><input name="p"></form>
      <svg onload="alert(1)"></svg><style>body{background:url(https://evil.example/t.gif)}</style><object data="x.swf"></object>`)
    expect(html).not.toMatch(/script|onclick|onload|iframe|<form|<input|javascript:|<style|<object|<svg|evil\.example/i)
    expect(html).toContain('<p>Bonjour</p>')
  })

  it('blocks remote images and styles that would fetch anything, and counts them', () => {
    const result = sanitizeEmailHtml(`<img src="https://tracker.example/pixel.gif?u=1" alt="logo"><img src="http://x.example/a.png">
      <div style="background-image: url(https://tracker.example/bg.png); color: red">t</div><img src="cid:part1@mail">`)
    expect(result.blockedRemote).toBe(3)
    expect(result.html).not.toContain('tracker.example')
    expect(result.html).not.toContain('x.example')
    expect(result.html).toContain('[remote image blocked: logo]')
    expect(result.html).toContain('[embedded image not shown]')
    expect(result.html).toContain('style="color:red"')
  })

  it('keeps inline data images, tables and links, which open outside the hub', () => {
    const pixel = 'data:image/png;base64,iVBORw0KGgo='
    const { html, blockedRemote } = sanitizeEmailHtml(`<table><tr><td colspan="2">A</td></tr></table><a href="https://client.example/page">page</a><img src="${pixel}">`)
    expect(blockedRemote).toBe(0)
    expect(html).toContain('<td colspan="2">A</td>')
    expect(html).toContain('<a href="https://client.example/page" target="_blank" rel="noopener noreferrer nofollow">page</a>')
    expect(html).toContain(`<img src="${pixel}" />`)
    expect(sanitizeEmailHtml('<img src="data:image/svg+xml;base64,PHN2Zz4=">').html).not.toContain('data:image/svg')
  })

  it('frames the result without any network access', () => {
    expect(EMAIL_FRAME_CSP).toContain('default-src \'none\'')
    expect(EMAIL_FRAME_CSP).toContain('img-src data:')
  })
})
