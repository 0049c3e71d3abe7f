import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../../src/daemon/signatures.js';

describe('webhook signatures', () => {
  it("verifies GitHub's documented test vector", () => {
    const body = Buffer.from('Hello, World!');
    const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

    expect(signBody("It's a Secret to Everybody", body)).toBe(header);
    expect(verifySignature(["It's a Secret to Everybody"], body, header)).toBe(true);
  });

  it('accepts any secret of a rotation and refuses everything else', () => {
    const body = Buffer.from('{"ref":"refs/heads/main"}');
    const header = signBody('new-secret', body);

    expect(verifySignature(['old-secret', 'new-secret'], body, header)).toBe(true);
    expect(verifySignature(['old-secret'], body, header)).toBe(false);
    expect(verifySignature(['new-secret'], Buffer.from('{"ref":"refs/heads/evil"}'), header)).toBe(false);
    expect(verifySignature(['new-secret'], body, undefined)).toBe(false);
    expect(verifySignature(['new-secret'], body, 'sha256=abc')).toBe(false);
    expect(verifySignature(['new-secret'], body, header.replace('sha256=', 'sha1='))).toBe(false);
    expect(verifySignature(['new-secret'], body, header.toUpperCase().replace('SHA256=', 'sha256='))).toBe(
      true,
    );
  });
});
