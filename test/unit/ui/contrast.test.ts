/**
 * The status page's colours (ui/app.css): every text colour against every ground it is drawn
 * on reaches WCAG AA's 4.5:1, in the light palette and in the dark one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CSS = readFileSync(join(import.meta.dirname, '../../../ui/app.css'), 'utf8');

/** The custom properties of the first `:root { … }` after `from` in the style sheet. */
function palette(from: number): Record<string, string> {
  const start = CSS.indexOf(':root {', from);
  const body = CSS.slice(start, CSS.indexOf('}', start));
  return Object.fromEntries([...body.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6});/g)].map((m) => [m[1], m[2]]));
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r as number) + 0.7152 * (g as number) + 0.0722 * (b as number);
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Text colour → the grounds it appears on. */
const PAIRS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['text', ['bg', 'panel', 'muted-bg']],
  ['muted', ['bg', 'panel']],
  ['accent', ['bg', 'panel', 'muted-bg']],
  ['ok-fg', ['ok-bg', 'panel']],
  ['warn-fg', ['warn-bg', 'panel', 'bg']],
  ['bad-fg', ['bad-bg', 'panel', 'bg']],
  ['info-fg', ['info-bg']],
  ['muted-fg', ['muted-bg']],
  ['live', ['panel', 'bg']],
  ['desired', ['panel', 'bg']],
];

describe('the status page palette', () => {
  it.each([
    ['light', palette(0)],
    ['dark', palette(CSS.indexOf('prefers-color-scheme: dark'))],
  ])('%s: every text colour reaches 4.5:1 on its grounds', (_name, colours) => {
    const weak: string[] = [];
    for (const [text, grounds] of PAIRS) {
      for (const ground of grounds) {
        const fg = colours[text];
        const bg = colours[ground];
        expect(fg, text).toBeDefined();
        expect(bg, ground).toBeDefined();
        const ratio = contrast(fg as string, bg as string);
        if (ratio < 4.5) weak.push(`${text} on ${ground}: ${ratio.toFixed(2)}`);
      }
    }

    expect(Object.keys(colours).length).toBeGreaterThan(15);
    expect(weak).toEqual([]);
  });
});
