import { validationFailed } from '@pis/shared';
import escapeHtml from 'escape-html';
import { SaxesParser } from 'saxes';

/**
 * A merchant's logo, checked before anything is stored: PNG by its signature, SVG by a strict
 * allow-list. An SVG is parsed as XML (saxes, strict) and written out again from the elements
 * and attributes on the list only, so what we serve is exactly what was checked. Refused with
 * a clear message, never cleaned silently: script, foreignObject, event handlers, any
 * reference outside the file (href, url() other than #id, @import), a DOCTYPE or entity, an
 * element or attribute not on the list. Served from our origin with a CSP of its own
 * (organizations/brand-logo-route.ts) and shown through <img>, where no script ever runs.
 */
export const LOGO_MAX_BYTES = 64 * 1024;
export type LogoType = 'image/png' | 'image/svg+xml';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Drawing elements only: no script, foreignObject, use, image, a, style, animation. */
const SVG_ELEMENTS = new Set([
  'svg',
  'g',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'title',
  'desc',
  'defs',
  'lineargradient',
  'radialgradient',
  'stop',
  'clippath',
  'mask',
]);

/** Presentation and geometry: never `on*`, `href`, `style` (which could carry url() or @import). */
const SVG_ATTRIBUTES = new Set([
  'xmlns',
  'version',
  'id',
  'class',
  'viewbox',
  'width',
  'height',
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'd',
  'points',
  'transform',
  'fill',
  'fill-opacity',
  'fill-rule',
  'clip-rule',
  'clip-path',
  'mask',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'opacity',
  'offset',
  'stop-color',
  'stop-opacity',
  'gradientunits',
  'gradienttransform',
  'spreadmethod',
  'clippathunits',
  'maskunits',
  'maskcontentunits',
  'preserveaspectratio',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'letter-spacing',
  'dx',
  'dy',
]);

const SVG_NAMESPACE = 'http://www.w3.org/2000/svg';
/** `url(#id)` only: a paint or clip that stays inside the file. */
const URL_VALUE = /url\s*\(/i;
const LOCAL_URL_ONLY = /^\s*url\(\s*['"]?#[A-Za-z][\w.-]*['"]?\s*\)\s*$/;

const refused = (message: string) => validationFailed([{ field: 'logo', message }]);

/** The SVG rebuilt from what the allow-list keeps; refuses anything else. */
export function checkedSvg(bytes: Buffer): Buffer {
  const source = bytes.toString('utf8');
  if (source.includes('\uFFFD')) throw refused('is not valid UTF-8 text, so it is not an SVG image');
  const out: string[] = [];
  let problem: string | null = null;
  let depth = 0;
  let sawRoot = false;
  const parser = new SaxesParser({ xmlns: false, position: false });
  parser.on('error', () => {
    problem ??= 'is not a well-formed SVG image';
  });
  parser.on('doctype', () => {
    problem ??= 'is an SVG with a DOCTYPE or entities, which are not allowed';
  });
  parser.on('processinginstruction', (pi) => {
    if (pi.target.toLowerCase() !== 'xml')
      problem ??= 'is an SVG with processing instructions, which are not allowed';
  });
  parser.on('cdata', () => {
    problem ??= 'is an SVG with CDATA sections, which are not allowed';
  });
  parser.on('opentag', (tag) => {
    const name = tag.name.toLowerCase();
    if (depth === 0) {
      if (sawRoot || name !== 'svg') problem ??= 'is not an SVG image (its root element must be <svg>)';
      sawRoot = true;
    }
    depth += 1;
    if (name === 'script') problem ??= 'is an SVG with a script, which is not allowed';
    else if (name === 'foreignobject') problem ??= 'is an SVG with foreignObject, which is not allowed';
    else if (!SVG_ELEMENTS.has(name))
      problem ??= `is an SVG with a <${tag.name}> element, which is not allowed`;
    const attributes: string[] = [];
    for (const [attribute, raw] of Object.entries(tag.attributes)) {
      const key = attribute.toLowerCase();
      const value = String(raw);
      if (key.startsWith('on'))
        problem ??= `is an SVG with an event handler (${attribute}), which is not allowed`;
      else if (key === 'href' || key.endsWith(':href') || key === 'src')
        problem ??= 'is an SVG with a reference to something outside it, which is not allowed';
      else if (key === 'style')
        problem ??= 'is an SVG with style attributes, which are not allowed (use fill and stroke)';
      else if (key === 'xmlns' && value !== SVG_NAMESPACE) problem ??= 'is an SVG in an unknown namespace';
      else if (key.startsWith('xmlns:')) problem ??= 'is an SVG with other namespaces, which are not allowed';
      else if (!SVG_ATTRIBUTES.has(key))
        problem ??= `is an SVG with a ${attribute} attribute, which is not allowed`;
      else if (URL_VALUE.test(value) && !LOCAL_URL_ONLY.test(value))
        problem ??= 'is an SVG with a reference to something outside it, which is not allowed';
      else attributes.push(` ${attribute}="${escapeHtml(value)}"`);
    }
    if (depth === 1 && !tag.attributes.xmlns) attributes.unshift(` xmlns="${SVG_NAMESPACE}"`);
    out.push(`<${tag.name}${attributes.join('')}>`);
  });
  parser.on('text', (text) => {
    if (depth > 0) out.push(escapeHtml(text));
  });
  parser.on('closetag', (tag) => {
    depth -= 1;
    out.push(`</${tag.name}>`);
  });
  try {
    parser.write(source).close();
  } catch {
    problem ??= 'is not a well-formed SVG image';
  }
  if (problem) throw refused(problem);
  if (!sawRoot) throw refused('is not an SVG image (its root element must be <svg>)');
  return Buffer.from(out.join(''), 'utf8');
}

/** The logo as it will be stored and served, or VALIDATION_FAILED saying why not. */
export function checkedLogo(bytes: Buffer): { bytes: Buffer; type: LogoType } {
  if (bytes.length === 0) throw refused('is empty');
  if (bytes.length > LOGO_MAX_BYTES) {
    throw refused(`is ${formatSize(bytes.length)}: a logo may be at most ${formatSize(LOGO_MAX_BYTES)}`);
  }
  if (bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return { bytes, type: 'image/png' };
  const start = bytes
    .subarray(0, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (start.startsWith('<')) {
    const svg = checkedSvg(bytes);
    if (svg.length > LOGO_MAX_BYTES)
      throw refused(`is too large once checked: at most ${formatSize(LOGO_MAX_BYTES)}`);
    return { bytes: svg, type: 'image/svg+xml' };
  }
  throw refused('is not a PNG or SVG image');
}

const formatSize = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

/** Decodes the base64 the dashboard sends; anything else is refused as not an image. */
export function logoBytes(base64: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw refused('is not a PNG or SVG image');
  return Buffer.from(base64, 'base64');
}
