/**
 * A real kube-apiserver (built by scripts/install-kube-apiserver.sh; found with its --check) on loopback over a
 * test etcd, for the tests that run ExternalDNS's Kubernetes sources (`crd`, `service`). No controller-manager,
 * scheduler or kubelet: only the API, which is all ExternalDNS reads. A Service's LoadBalancer address is
 * written by the test through the /status subresource, as a cloud controller would.
 *
 * Certificates are made with openssl in a temp dir: a CA, a serving certificate for 127.0.0.1 signed by it,
 * and a service-account key. The client (Node here, ExternalDNS through `kubeconfig`) authenticates with a
 * static token of group system:masters; authorization is AlwaysAllow.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EtcdServer } from './etcd';
import { freePort } from './ports';
import { checkedBin } from './tools';
import { waitFor } from './wait';

/** The kube-apiserver binary scripts/install-kube-apiserver.sh built (a clear error when it did not). */
export function kubeApiserverBin(): string {
  return join(
    checkedBin('install-kube-apiserver.sh', 'kube-apiserver', "ExternalDNS's Kubernetes tests", 'kube-apiserver v1.37.0', '5 min'),
    'kube-apiserver',
  );
}

/** Where the DNSEndpoint CRD ships in the ExternalDNS module (downloaded by scripts/install-external-dns.sh). */
export function dnsEndpointCrdPath(version = 'v0.23.0'): string {
  const cache = process.env.TMKIT_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? '/root', '.cache'), 'tmkit');
  const modcache = process.env.GOMODCACHE ?? join(cache, 'gomod');
  const path = join(modcache, `sigs.k8s.io/external-dns@${version}/config/crd/standard/dnsendpoints.externaldns.k8s.io.yaml`);
  if (!existsSync(path)) throw new Error(`the DNSEndpoint CRD is not at ${path}: run scripts/install-external-dns.sh`);
  return path;
}

export interface KubeResponse {
  status: number;
  body: unknown;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

export class KubeApiserver {
  readonly dir: string;
  readonly token = randomBytes(16).toString('hex');
  port = 0;
  log = '';
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private ca = '';

  constructor(
    private readonly etcd: EtcdServer,
    private readonly bin = kubeApiserverBin(),
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'tmkit-kube-'));
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** A kubeconfig for ExternalDNS's --kubeconfig: this server, its CA, the admin token. */
  get kubeconfig(): string {
    return join(this.dir, 'kubeconfig');
  }

  private certificates(): void {
    const d = this.dir;
    openssl(d, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key']);
    openssl(d, ['req', '-x509', '-new', '-key', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=tmkit test kube CA']);
    openssl(d, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'apiserver.key']);
    openssl(d, ['req', '-new', '-key', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver']);
    writeFileSync(join(d, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    openssl(d, [
      'x509',
      '-req',
      '-in',
      'apiserver.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'apiserver.crt',
      '-days',
      '2',
      '-extfile',
      'san.ext',
    ]);
    openssl(d, ['genrsa', '-out', 'sa.key', '2048']);
    this.ca = readFileSync(join(d, 'ca.crt'), 'utf8');
    writeFileSync(join(d, 'tokens.csv'), `${this.token},tmkit-test-admin,tmkit-test-admin,"system:masters"\n`);
  }

  private writeKubeconfig(): void {
    // JSON is YAML: client-go reads it as a kubeconfig.
    const config = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: this.url, 'certificate-authority-data': Buffer.from(this.ca).toString('base64') } }],
      users: [{ name: 'admin', user: { token: this.token } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user: 'admin' } }],
      'current-context': 'test',
    };
    writeFileSync(this.kubeconfig, JSON.stringify(config, null, 2));
  }

  /** Starts kube-apiserver on a free loopback port (another one if it was taken meanwhile) and waits for /readyz. */
  async start(): Promise<void> {
    if (this.ca === '') this.certificates();
    for (let attempt = 0; ; attempt++) {
      this.port = await freePort();
      try {
        await this.spawnOnce();
        this.writeKubeconfig();
        return;
      } catch (err) {
        if (attempt < 3 && /address already in use/i.test((err as Error).message)) continue;
        throw err;
      }
    }
  }

  private async spawnOnce(): Promise<void> {
    const d = this.dir;
    const child = spawn(
      this.bin,
      [
        `--etcd-servers=${this.etcd.url}`,
        `--etcd-prefix=/registry-${randomBytes(4).toString('hex')}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${this.port}`,
        `--cert-dir=${d}`,
        `--tls-cert-file=${join(d, 'apiserver.crt')}`,
        `--tls-private-key-file=${join(d, 'apiserver.key')}`,
        `--service-account-key-file=${join(d, 'sa.key')}`,
        `--service-account-signing-key-file=${join(d, 'sa.key')}`,
        '--service-account-issuer=https://kubernetes.default.svc',
        `--token-auth-file=${join(d, 'tokens.csv')}`,
        '--authorization-mode=AlwaysAllow',
        '--service-cluster-ip-range=10.96.0.0/24',
        // No controller-manager: nothing would make the ServiceAccount tokens that admission plugin waits for.
        '--disable-admission-plugins=ServiceAccount',
        // The `kubernetes` Service's endpoints would be 127.0.0.1, which Endpoints validation refuses.
        '--endpoint-reconciler-type=none',
        // One client, no need for fairness queues; less work at start on a 2-core machine.
        '--enable-priority-and-fairness=false',
        '--profiling=false',
        '--v=1',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    this.log = '';
    const keep = (s: string): void => {
      this.log = (this.log + s).slice(-40_000);
    };
    child.stdout!.setEncoding('utf8').on('data', keep);
    child.stderr!.setEncoding('utf8').on('data', keep);
    let dead = false;
    this.exited = new Promise((r) =>
      child.on('exit', () => {
        dead = true;
        r();
      }),
    );
    const end = Date.now() + 120_000;
    for (;;) {
      if (dead) throw new Error(`kube-apiserver exited during start: ${this.log.slice(-3000)}`);
      try {
        const r = await this.request('GET', '/readyz');
        if (r.status === 200) return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > end) {
        child.kill('SIGKILL');
        await this.exited;
        throw new Error(`kube-apiserver was not ready in 120 s: ${this.log.slice(-3000)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** A request as the admin: JSON in, JSON (or text) out. */
  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<KubeResponse> {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        `${this.url}${path}`,
        {
          method,
          ca: this.ca,
          headers: {
            authorization: `Bearer ${this.token}`,
            accept: 'application/json',
            ...(data !== undefined ? { 'content-type': contentType, 'content-length': Buffer.byteLength(data) } : {}),
          },
          timeout: 10_000,
        },
        (res) => {
          let text = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (text += c))
            .on('end', () => {
              let parsed: unknown = text;
              try {
                parsed = text === '' ? undefined : JSON.parse(text);
              } catch {
                /* not JSON (/readyz says "ok") */
              }
              resolve({ status: res.statusCode ?? 0, body: parsed });
            });
        },
      );
      req.on('error', reject);
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
      req.end(data);
    });
  }

  /** `request`, failing unless the status is 2xx. */
  async must<T = unknown>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const r = await this.request(method, path, body, contentType);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as T;
  }

  /** Installs the DNSEndpoint CRD from the ExternalDNS module's YAML and waits until it is Established. */
  async installDnsEndpointCrd(): Promise<void> {
    // js-yaml is in node_modules (through jest) as test/examples/github-actions-app.test.ts uses it.
    const load = createRequire(__filename)('js-yaml').load as (text: string) => { metadata: { name: string } };
    const crd = load(readFileSync(dnsEndpointCrdPath(), 'utf8'));
    const r = await this.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    if (r.status !== 201 && r.status !== 409) throw new Error(`creating the DNSEndpoint CRD: ${r.status} ${JSON.stringify(r.body)}`);
    const name = crd.metadata.name;
    await waitFor(
      async () => {
        const got = await this.must<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
          'GET',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
        );
        const established = (got.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
        if (!established) return false;
        // Served too (discovery can lag Established by a moment).
        return (await this.request('GET', '/apis/externaldns.k8s.io/v1alpha1/dnsendpoints')).status === 200;
      },
      { what: `CRD ${name} Established and served`, timeoutMs: 30_000, intervalMs: 100 },
    );
  }

  async createNamespace(name: string): Promise<void> {
    const r = await this.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${name}: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /** Creates a DNSEndpoint (externaldns.k8s.io/v1alpha1) with these endpoints. */
  async createDnsEndpoint(namespace: string, name: string, endpoints: unknown[]): Promise<void> {
    await this.must('POST', `/apis/externaldns.k8s.io/v1alpha1/namespaces/${namespace}/dnsendpoints`, {
      apiVersion: 'externaldns.k8s.io/v1alpha1',
      kind: 'DNSEndpoint',
      metadata: { name, namespace },
      spec: { endpoints },
    });
  }

  async deleteDnsEndpoint(namespace: string, name: string): Promise<void> {
    await this.must('DELETE', `/apis/externaldns.k8s.io/v1alpha1/namespaces/${namespace}/dnsendpoints/${name}`);
  }

  /**
   * Creates a Service of type LoadBalancer with these annotations and sets its status.loadBalancer.ingress to
   * `ip` through the /status subresource (what a cloud controller does; none runs here).
   */
  async createLoadBalancer(namespace: string, name: string, annotations: Record<string, string>, ip: string): Promise<void> {
    await this.must('POST', `/api/v1/namespaces/${namespace}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace, annotations },
      spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, selector: { app: name }, ports: [{ port: 80, protocol: 'TCP' }] },
    });
    await this.must(
      'PATCH',
      `/api/v1/namespaces/${namespace}/services/${name}/status`,
      { status: { loadBalancer: { ingress: [{ ip }] } } },
      'application/merge-patch+json',
    );
  }

  async deleteService(namespace: string, name: string): Promise<void> {
    await this.must('DELETE', `/api/v1/namespaces/${namespace}/services/${name}`);
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGTERM');
    const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(t);
    this.child = undefined;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Starts a kube-apiserver over `etcd` (the caller starts and destroys the etcd). */
export async function startKubeApiserver(etcd: EtcdServer): Promise<KubeApiserver> {
  const k = new KubeApiserver(etcd);
  try {
    await k.start();
  } catch (err) {
    await k.destroy();
    throw err;
  }
  return k;
}
