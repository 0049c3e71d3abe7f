/**
 * The status page (see docs/daemon.md, Status page): a read-only page at `/` that renders
 * `/status` in the browser. Its files are built from `ui/` into `dist/ui/` by `npm run build`
 * and read once when the server starts; nothing is fetched from elsewhere, and every reply
 * carries a Content-Security-Policy that allows only this origin's script, style and
 * `/status`, so nothing a YAML document names can run as script or load from another host.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the page, ready to send. */
export interface PageAsset {
  readonly type: string;
  readonly body: Buffer;
  /** A strong validator: the page's files change only with a new build. */
  readonly etag: string;
}

/** The page's files by request path (`/` and `/ui/<file>`), or why there are none. */
export type StatusPage =
  | { readonly kind: 'ready'; readonly assets: ReadonlyMap<string, PageAsset> }
  | { readonly kind: 'missing'; readonly dir: string };

/** Only these script, style and image sources; no inline code, no other origin, no framing. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of every page reply. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** `dist/ui` of the package this module belongs to (found from `dist/src/…` and from `src/…`). */
function defaultPageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return join(dir, 'dist', 'ui');
}

/** Reads the built page; `missing` when `npm run build` has not built it (the route says so). */
export function loadStatusPage(dir: string = defaultPageDir()): StatusPage {
  if (!existsSync(join(dir, 'index.html'))) return { kind: 'missing', dir };
  const assets = new Map<string, PageAsset>();
  for (const name of readdirSync(dir).sort()) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const body = readFileSync(join(dir, name));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name === 'index.html' ? '/' : `/ui/${name}`, { type, body, etag });
  }
  return { kind: 'ready', assets };
}
