/**
 * The provider executable loads its bundle with a V8 code cache (providers/terraform/src/bin/loader.ts): the
 * first start writes it, later starts use it, a damaged or foreign cache falls back to a plain compile, and
 * none of it touches stdout (the handshake must stay the very first bytes).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCert } from '../../../providers/terraform/src/cert';
import { startPlugin, TMKIT_PROVIDER } from './helpers';

jest.setTimeout(60_000);

describe('provider code cache', () => {
  const client = generateCert();
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tmkit-codecache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function start(env: NodeJS.ProcessEnv = {}): Promise<{ stderr: string; handshake: string }> {
    const p = await startPlugin({
      entry: TMKIT_PROVIDER,
      clientCert: client,
      env: { TMKIT_CACHE_DIR: dir, TMKIT_DEBUG_CODE_CACHE: '1', ...env },
    });
    try {
      return { stderr: p.stderr(), handshake: p.handshake };
    } finally {
      p.kill();
      await p.exited;
    }
  }

  test('the first start writes the cache, the next one uses it, the handshake stays first on stdout', async () => {
    const first = await start();
    expect(first.stderr).toMatch(/tmkit code cache: miss/);
    expect(first.stderr).toMatch(/tmkit code cache: written/);
    expect(first.handshake).toMatch(/^1\|6\|tcp\|127\.0\.0\.1:\d+\|grpc\|/);
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(
      new RegExp(`^terraform-provider-tmkit\\.bundle-\\d+-\\d+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`),
    );
    // A cache of an earlier build of the same bundle for this Node is dropped when a new one is written.
    const stale = files[0]!.replace(/-(\d+)-(\d+)-v/, '-1-1-v');
    writeFileSync(join(dir, stale), 'old');
    writeFileSync(join(dir, 'terraform-provider-tmkit.bundle-1-1-v0.0.0-x64.v8cache'), 'other node');
    rmSync(join(dir, files[0]!));
    await start();
    expect(readdirSync(dir).sort()).toEqual([files[0], 'terraform-provider-tmkit.bundle-1-1-v0.0.0-x64.v8cache'].sort());
    const second = await start();
    expect(second.stderr).toMatch(/tmkit code cache: hit/);
    expect(second.stderr).not.toMatch(/written/);
    expect(second.handshake).toMatch(/^1\|6\|tcp\|/);
  });

  test('a damaged cache is rejected by V8 and rewritten; the provider still starts', async () => {
    await start();
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file!), Buffer.alloc(4096, 7));
    const after = await start();
    expect(after.stderr).toMatch(/tmkit code cache: rejected/);
    expect(after.stderr).toMatch(/tmkit code cache: written/);
    expect((await start()).stderr).toMatch(/tmkit code cache: hit/);
  });

  test('TMKIT_NO_CODE_CACHE=1 writes nothing; an unwritable cache dir only costs the cache', async () => {
    expect((await start({ TMKIT_NO_CODE_CACHE: '1' })).stderr).toMatch(/tmkit code cache: off/);
    expect(readdirSync(dir)).toHaveLength(0);
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const r = await start({ TMKIT_CACHE_DIR: join(blocker, 'sub') });
    expect(r.stderr).toMatch(/tmkit code cache: not written/);
    expect(r.handshake).toMatch(/^1\|6\|tcp\|/);
  });
});
