/**
 * Helpers for the Terraform provider tests: the bundled providers (dist/, built by `npm test`'s pretest)
 * started as real processes, a gRPC client of our own over (m)TLS, and the real `terraform` CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, credentials, makeGenericClientConstructor, Metadata, type ChannelCredentials } from '@grpc/grpc-js';
import { generateCert, type GeneratedCert } from '../../../providers/terraform/src/cert';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../../providers/terraform/src/plugin';
import { serviceDefinition, type Msg } from '../../../providers/terraform/src/proto';
import { TmkitClient } from '../../../src/client';
import { runTmkit, spawnServe, type ServeProcess } from '../../support/process';

export const REPO = join(__dirname, '../../..');
export const TEST_PROVIDER = join(REPO, 'dist/providers/terraform/bin/terraform-provider-tmkittest.js');
export const TMKIT_PROVIDER = join(REPO, 'dist/providers/terraform/bin/terraform-provider-tmkit.js');
export const TERRAFORM = process.env.TMKIT_TEST_TERRAFORM ?? 'terraform';

/** A Terraform-protocol CLI the e2e suites drive: terraform itself, or OpenTofu's tofu. */
export interface Cli {
  name: 'terraform' | 'tofu';
  bin: string;
  /** The registry host a bare `tmkit/tmkit` source means to this CLI (its provider addresses). */
  registry: string;
  /** How the CLI names itself in its messages ("Terraform has been successfully initialized!"). */
  product: 'Terraform' | 'OpenTofu';
}

/**
 * The CLIs every Terraform e2e suite runs with (describe.each): terraform, and tofu from TMKIT_TOFU (a path;
 * `off` leaves it out) or else `tofu` on PATH (scripts/install-tofu.sh builds it; .ci/run sets TMKIT_TOFU).
 * In CI a missing tofu is an error, not a skip: the suites must pass on both.
 */
export const CLIS: Cli[] = (() => {
  const out: Cli[] = [{ name: 'terraform', bin: TERRAFORM, registry: 'registry.terraform.io', product: 'Terraform' }];
  const given = process.env.TMKIT_TOFU;
  if (given === 'off') return out;
  const tofu = given || onPath('tofu');
  if (tofu) out.push({ name: 'tofu', bin: tofu, registry: 'registry.opentofu.org', product: 'OpenTofu' });
  else if (process.env.CI)
    throw new Error(
      'OpenTofu is not on PATH and TMKIT_TOFU is unset: the Terraform e2e suites run with tofu too in CI (scripts/install-tofu.sh builds it)',
    );
  return out;
})();

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** This process's environment without Terraform's and go-plugin's variables and without TMKIT_*. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^(TF_|PLUGIN_|TMKIT|CHECKPOINT_)/.test(k) || k === 'TMKIT_SQLITE_DRIVER') env[k] = v;
  }
  return { ...env, ...extra };
}

export interface PluginProcess {
  child: ChildProcess;
  /** The handshake line without its newline. */
  handshake: string;
  fields: string[];
  port: number;
  /** The server certificate (PEM) from the handshake, '' without AutoMTLS. */
  serverCertPem: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

/** Starts a provider bundle like Terraform does (cookie, protocol 6, AutoMTLS with `clientCert` unless null). */
export function startPlugin(
  opts: { entry?: string; clientCert?: GeneratedCert | null; env?: NodeJS.ProcessEnv } = {},
): Promise<PluginProcess> {
  const env = cleanEnv({
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: '6',
    ...(opts.clientCert ? { PLUGIN_CLIENT_CERT: opts.clientCert.certPem } : {}),
    ...opts.env,
  });
  const child = spawn(process.execPath, [opts.entry ?? TEST_PROVIDER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no handshake in 20 s; stderr:\n${err}`));
    }, 20_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      const before = out;
      out += d;
      if (!before.includes('\n') && out.includes('\n')) {
        clearTimeout(t);
        const handshake = out.slice(0, out.indexOf('\n'));
        const fields = handshake.split('|');
        const certB64 = fields[5] ?? '';
        const serverCertPem = certB64 ? new X509Certificate(Buffer.from(certB64, 'base64')).toString() : '';
        resolve({
          child,
          handshake,
          fields,
          port: Number(fields[3]!.split(':')[1]),
          serverCertPem,
          stdout: () => out,
          stderr: () => err,
          exited,
          kill: () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          },
        });
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(t);
      if (!out.includes('\n'))
        reject(Object.assign(new Error(`plugin exited ${code} before the handshake; stderr:\n${err}`), { code, stderr: err, stdout: out }));
    });
  });
}

/** Runs a plugin that is expected to exit before any handshake; resolves with its exit code and output. */
export function runPluginToExit(
  env: NodeJS.ProcessEnv,
  entry = TEST_PROVIDER,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('plugin did not exit in 20 s'));
    }, 20_000);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

type Unary = (req: Msg, md: Metadata, opts: { deadline: number }, cb: (err: Error | null, res: Msg) => void) => void;

/** A gRPC client for one of the plugin's services, with promise-returning unary calls. */
export class PluginClient {
  readonly raw: Client & Record<string, Unary>;
  constructor(service: string, port: number, creds: ChannelCredentials) {
    const Ctor = makeGenericClientConstructor(serviceDefinition(service), service);
    this.raw = new Ctor(`127.0.0.1:${port}`, creds, {
      'grpc.ssl_target_name_override': 'localhost',
      'grpc.max_receive_message_length': -1,
    }) as unknown as Client & Record<string, Unary>;
  }
  call(method: string, req: Msg = {}, timeoutMs = 10_000): Promise<Msg> {
    return new Promise((resolve, reject) => {
      this.raw[method]!.call(this.raw, req, new Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) =>
        err ? reject(err) : resolve(res),
      );
    });
  }
  close(): void {
    this.raw.close();
  }
}

/** TLS credentials like Terraform's: trust the plugin's certificate, present `client`. */
export function mtls(serverCertPem: string, client: GeneratedCert | null): ChannelCredentials {
  return client
    ? credentials.createSsl(Buffer.from(serverCertPem), Buffer.from(client.keyPem), Buffer.from(client.certPem))
    : credentials.createSsl(Buffer.from(serverCertPem));
}

export { generateCert };

export interface TfResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real terraform (or `bin`, e.g. tofu) in `cwd` with `env` (CLI config, automation mode, no checkpoint calls). */
export function terraform(args: string[], cwd: string, env: NodeJS.ProcessEnv, bin: string = TERRAFORM): Promise<TfResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      env: cleanEnv({ TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', (e) =>
      reject(
        new Error(
          `cannot run ${bin} (${e.message}); the Terraform provider e2e tests need terraform ≥ 1.0 on PATH (or TMKIT_TEST_TERRAFORM), and tofu (TMKIT_TOFU)`,
        ),
      ),
    );
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The result, or an error with what terraform printed when it failed. */
export function ok(r: TfResult): TfResult {
  if (r.code !== 0) throw new Error(`terraform exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  return r;
}

/** A scratch directory with a real `tmkit serve` and the provider installed by `tmkit terraform install`. */
export interface TfWorkspace {
  root: string;
  /** Where main.tf goes and terraform runs. */
  work: string;
  serve: ServeProcess;
  token: string;
  client: TmkitClient;
  /** The CLI config, data dir, server and token for terraform. */
  env: NodeJS.ProcessEnv;
  /** terraform (or `bin`) in `work`, without colour. */
  tf(...args: string[]): Promise<TfResult>;
  /** Stops the server and removes the directory. */
  close(): Promise<void>;
}

export async function tfWorkspace(prefix: string, bin: string = TERRAFORM): Promise<TfWorkspace> {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const work = join(root, 'work');
  mkdirSync(work);
  const serve = await spawnServe(join(root, 'state'), ['--zone', 'tm.internal']);
  const token = readFileSync(join(root, 'state', 'token'), 'utf8').trim();
  const client = new TmkitClient({ server: serve.api, token, env: {} });
  const inst = await runTmkit(['terraform', 'install', '--dir', join(root, 'inst')]);
  if (inst.code !== 0) throw new Error(`tmkit terraform install exited ${inst.code}: ${inst.stderr}`);
  const rc = /^export TF_CLI_CONFIG_FILE=(.+)$/m.exec(inst.stdout.trim().split('\n').pop()!)![1]!;
  const env = { TF_CLI_CONFIG_FILE: rc, TF_DATA_DIR: join(work, '.terraform'), TMKIT_SERVER: serve.api, TMKIT_TOKEN: token };
  return {
    root,
    work,
    serve,
    token,
    client,
    env,
    tf: (...args) => terraform([...args, '-no-color'], work, env, bin),
    close: async () => {
      await client.close();
      serve.child.kill('SIGTERM');
      await serve.closed;
      rmSync(root, { recursive: true, force: true });
    },
  };
}
