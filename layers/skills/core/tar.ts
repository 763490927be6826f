// A minimal POSIX ustar writer and reader for SKILL.md bundles: regular files only, no
// dependency. The reader refuses what a bundle should never hold (links, absolute paths,
// `..`), so an imported archive cannot write outside the skill.
const BLOCK = 512

function header(path: string, size: number): Buffer {
  const block = Buffer.alloc(BLOCK)
  const name = Buffer.from(path, 'utf8')
  if (name.length > 100) throw new Error(`path too long for the bundle: ${path}`)
  name.copy(block, 0)
  block.write('0000644\0', 100, 'ascii')
  block.write('0000000\0', 108, 'ascii')
  block.write('0000000\0', 116, 'ascii')
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii')
  block.write('00000000000\0', 136, 'ascii')
  block.write('        ', 148, 'ascii')
  block.write('0', 156, 'ascii')
  block.write('ustar\0', 257, 'ascii')
  block.write('00', 263, 'ascii')
  let sum = 0
  for (const byte of block) sum += byte
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii')
  return block
}

export function writeTar(files: Array<{ path: string, content: string }>): Buffer {
  const parts: Buffer[] = []
  for (const file of files) {
    const data = Buffer.from(file.content, 'utf8')
    parts.push(header(file.path, data.length), data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK))
  }
  parts.push(Buffer.alloc(BLOCK * 2))
  return Buffer.concat(parts)
}

export function readTar(archive: Buffer): Array<{ path: string, content: string }> {
  const files: Array<{ path: string, content: string }> = []
  let offset = 0
  while (offset + BLOCK <= archive.length) {
    const block = archive.subarray(offset, offset + BLOCK)
    if (block.every(byte => byte === 0)) break
    const field = (start: number, length: number) => block.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '')
    const prefix = field(345, 155)
    const path = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100)
    const size = Number.parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1) || '0'
    if (!Number.isFinite(size) || size < 0 || offset + BLOCK + size > archive.length) throw new Error(`bundle: truncated entry "${path}"`)
    if (type === '0') {
      if (path.startsWith('/') || path.split('/').includes('..')) throw new Error(`bundle: refused path "${path}"`)
      files.push({ path: path.replace(/^\.\//, ''), content: archive.subarray(offset + BLOCK, offset + BLOCK + size).toString('utf8') })
    }
    else if (type !== '5') throw new Error(`bundle: refused entry "${path}" (type ${type}: only files and folders)`)
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK
  }
  return files
}
