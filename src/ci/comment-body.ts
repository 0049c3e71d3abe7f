/**
 * The plan comment's body: the hidden marker that finds it again, the content, and a footer
 * with the revision and the run. A body over GitHub's limit is cut at a line, its open
 * `<details>` and code fence closed, with a note that the whole plan is in the job summary.
 */

/** GitHub refuses a comment body longer than this (characters). */
const GITHUB_COMMENT_LIMIT = 65_536;

/** The hidden first line of the plan comment; `id` tells two deployments' comments apart. */
export function commentMarker(id: string | undefined): string {
  const suffix = id === undefined || id === '' ? '' : `:${id.replace(/[^A-Za-z0-9_.-]/g, '-')}`;
  return `<!-- edgesync-plan${suffix} -->`;
}

/** `text` in a fenced code block whose fence no line of it can close. */
export function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text.replace(/\n$/, '')}\n${fence}`;
}

/** What closes the `<details>` blocks and the code fence still open at the end of `text`. */
function closers(text: string): string {
  let fence: string | undefined;
  let open = 0;
  for (const line of text.split('\n')) {
    const f = /^(`{3,})/.exec(line)?.[1];
    if (f !== undefined) {
      if (fence === undefined) fence = f;
      else if (f.length >= fence.length && line.trim() === f) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    open += (line.match(/<details[\s>]/g) ?? []).length - (line.match(/<\/details>/g) ?? []).length;
  }
  return [fence ?? '', ...Array.from({ length: Math.max(0, open) }, () => '</details>')]
    .filter((s) => s !== '')
    .join('\n');
}

export interface CommentParts {
  readonly marker: string;
  readonly content: string;
  readonly footer: string;
  /** Where the whole plan can be read when the comment is cut (the run's job summary). */
  readonly summaryUrl: string;
}

/** The body, cut to `limit` characters when it is longer. */
export function commentBody(
  parts: CommentParts,
  limit = GITHUB_COMMENT_LIMIT,
): { body: string; cut: boolean } {
  const whole = `${parts.marker}\n${parts.content.trimEnd()}\n\n${parts.footer}\n`;
  if (whole.length <= limit) return { body: whole, cut: false };
  const note = (shown: number) =>
    `> **The plan is cut here**: ${shown} of ${parts.content.length} characters are shown, as GitHub takes at most ${limit} in a comment. The whole plan is in the [job summary](${parts.summaryUrl}).`;
  // Room for the marker, the footer, the note and the closing tags.
  const budget = limit - parts.marker.length - parts.footer.length - note(parts.content.length).length - 400;
  const lines = parts.content.split('\n');
  let kept = '';
  for (const line of lines) {
    if (kept.length + line.length + 1 > budget) break;
    kept += `${line}\n`;
  }
  const close = closers(kept);
  const body = `${parts.marker}\n${kept}${close === '' ? '' : `${close}\n`}\n${note(kept.length)}\n\n${parts.footer}\n`;
  return { body, cut: true };
}
