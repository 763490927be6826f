// Email HTML for the hub: sanitised (sanitize-html, an allowlist of tags and attributes)
// and with remote content blocked — remote images become a visible "[image blocked]"
// marker, styles that could fetch anything are dropped, links open outside the hub. The
// hub then shows the result in a sandboxed frame whose CSP forbids any network load.
import sanitizeHtml from 'sanitize-html'

export interface SanitisedHtml {
  html: string
  /** Remote images and other remote references removed. */
  blockedRemote: number
}

const SAFE_VALUE = /^(?!.*(?:url\s*\(|expression\s*\(|@import|javascript:)).*$/i

const STYLES = Object.fromEntries([
  'color', 'background-color', 'text-align', 'font-weight', 'font-style', 'font-size', 'font-family',
  'text-decoration', 'line-height', 'padding', 'padding-left', 'padding-right', 'padding-top', 'padding-bottom',
  'margin', 'margin-left', 'margin-right', 'margin-top', 'margin-bottom', 'border', 'border-collapse', 'width', 'max-width', 'vertical-align',
].map(property => [property, [SAFE_VALUE]]))

const INLINE_IMAGE = /^data:image\/(?:png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]+$/i

export function sanitizeEmailHtml(html: string): SanitisedHtml {
  let blockedRemote = 0
  const out = sanitizeHtml(html, {
    allowedTags: [
      'a', 'abbr', 'b', 'blockquote', 'br', 'caption', 'center', 'code', 'dd', 'del', 'div', 'dl', 'dt', 'em', 'font',
      'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'img', 'ins', 'li', 'ol', 'p', 'pre', 'q', 's', 'small', 'span',
      'strike', 'strong', 'sub', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'u', 'ul',
    ],
    disallowedTagsMode: 'discard',
    allowedAttributes: {
      '*': ['style', 'title', 'align', 'dir', 'lang'],
      'a': ['href', 'name', 'target', 'rel'],
      'img': ['src', 'alt', 'width', 'height'],
      'font': ['color', 'size', 'face'],
      'table': ['width', 'border', 'cellpadding', 'cellspacing', 'bgcolor'],
      'td': ['colspan', 'rowspan', 'width', 'valign', 'bgcolor'],
      'th': ['colspan', 'rowspan', 'width', 'valign', 'bgcolor'],
      'ol': ['start', 'type'],
    },
    allowedStyles: { '*': STYLES },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesByTag: { img: ['data'] },
    allowProtocolRelative: false,
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' } }),
      img: (tagName, attribs) => {
        const src = (attribs.src ?? '').trim()
        if (INLINE_IMAGE.test(src)) return { tagName, attribs }
        if (src) blockedRemote += 1
        const label = src.toLowerCase().startsWith('cid:') ? 'embedded image not shown' : 'remote image blocked'
        return { tagName: 'span', attribs: { title: label, style: 'color: #888' }, text: `[${label}${attribs.alt ? `: ${attribs.alt}` : ''}]` }
      },
    },
  })
  return { html: out, blockedRemote }
}

/** The Content-Security-Policy of the frame that shows a sanitised email: no network at all. */
export const EMAIL_FRAME_CSP = 'default-src \'none\'; img-src data:; style-src \'unsafe-inline\'; font-src \'none\'; form-action \'none\''
