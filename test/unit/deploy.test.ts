/**
 * What can be checked of the container image and the deployment files without a Docker
 * engine: the Dockerfile's COPY sources exist (and pass .dockerignore), its entry point is
 * what `npm run build` produces, the health check port is the default listen port, and the
 * compose and Kubernetes files parse and use only flags, paths and variables edgesync knows.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { DEFAULT_LISTEN, DEFAULT_SHUTDOWN_TIMEOUT_S, registerRun } from '../../src/cli/commands/run.js';
import type { CliIo } from '../../src/cli/io.js';
import { parseRemoteUrl } from '../../src/daemon/notify/github-repo.js';

const REPO = resolve(import.meta.dirname, '../..');

interface Instruction {
  readonly stage: string;
  readonly keyword: string;
  readonly args: string;
}

/** The Dockerfile as instructions (continuation lines joined, comments dropped), each with its stage. */
function dockerfile(): Instruction[] {
  const text = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
  const logical = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  let stage = '';
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? args;
    return { stage, keyword, args };
  });
}

function only(instructions: Instruction[], keyword: string, stage?: string): Instruction[] {
  return instructions.filter((i) => i.keyword === keyword && (stage === undefined || i.stage === stage));
}

/** The options `edgesync run` accepts, from the real command definition. */
function runOptions(): Set<string> {
  const program = new Command();
  const io = { stdout: { write: () => true }, stderr: { write: () => true } } as unknown as CliIo;
  registerRun(program, io, () => undefined);
  const run = program.commands.find((command) => command.name() === 'run');
  return new Set((run?.options ?? []).map((option) => option.long ?? ''));
}

/** Every `--flag` of an argument list is an option of `run`; returns the flag → value map. */
function checkRunArgs(args: readonly string[]): Map<string, string | true> {
  expect(args[0]).toBe('run');
  const known = runOptions();
  const flags = new Map<string, string | true>();
  for (const arg of args.slice(1)) {
    const [flag = '', value] = arg.split(/=(.*)/s);
    expect(known, `${flag} is an option of edgesync run`).toContain(flag);
    flags.set(flag, value ?? true);
  }
  return flags;
}

/** The checkout root and link name of git-sync's `--root=…` and `--link=…` arguments. */
function gitSyncCheckout(args: readonly string[]): { root: string; link: string } {
  const flags = new Map(args.map((arg) => arg.replace(/^--/, '').split('=') as [string, string]));
  return { root: flags.get('root') ?? '', link: flags.get('link') ?? '' };
}

/** Environment variables edgesync reads (the CLI's settings). */
const KNOWN_ENV = [
  'EDGESYNC_CONFIG',
  'EDGESYNC_STATE_DIR',
  'EDGESYNC_STATE_URL',
  'EDGESYNC_ACCESS_KEY',
  'EDGESYNC_BASE_URL',
  'EDGESYNC_SECRETS_DIR',
];

/** A variable edgesync reads: a setting, or a container secret (`EDGESYNC_SECRET_*`, docs/secrets.md). */
function isKnownEnv(name: string): boolean {
  return KNOWN_ENV.includes(name) || /^EDGESYNC_SECRET_[A-Za-z0-9_]+$/.test(name);
}

describe('Dockerfile', () => {
  const instructions = dockerfile();
  /** Every ENV of the runtime stage, as one string. */
  const runtimeEnv = (): string =>
    only(instructions, 'ENV', 'runtime')
      .map((i) => i.args)
      .join(' ');

  it('copies only paths that exist in the repository and pass .dockerignore', () => {
    const ignore = readFileSync(join(REPO, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    const sources = only(instructions, 'COPY')
      .filter((i) => !i.args.startsWith('--from='))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));

    expect([...new Set(sources)]).toEqual([
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'src',
      'ui',
    ]);
    for (const source of sources) {
      expect(existsSync(join(REPO, source)), source).toBe(true);
      expect(ignore, `${source} is allowed by .dockerignore`).toContain(source);
    }
  });

  it('installs from the lockfile, builds with tsc, and runs dist/ with production dependencies only', () => {
    const runs = only(instructions, 'RUN').map((i) => [i.stage, i.args]);
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
      scripts: { build: string; 'build:ui': string };
      bin: { edgesync: string };
    };

    expect(runs).toContainEqual(['deps', 'npm ci --no-audit --no-fund']);
    expect(runs).toContainEqual(['build', 'npm run build']);
    // The status page (ui/) is built into dist/ui/ by the same script, so the image serves it.
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json && npm run build:ui');
    expect(pkg.scripts['build:ui']).toMatch(/^tsc -p ui\/tsconfig\.json && /);
    expect(runs.filter(([stage, args]) => stage === 'runtime' && args?.startsWith('npm ci'))).toEqual([
      ['runtime', 'npm ci --omit=dev --no-audit --no-fund && npm cache clean --force'],
    ]);
    expect(only(instructions, 'COPY', 'runtime').map((i) => i.args)).toEqual([
      'package.json package-lock.json ./',
      '--from=build /app/dist ./dist',
    ]);
    const nodeImage = '$' + '{NODE_IMAGE}';
    expect(only(instructions, 'FROM').map((i) => i.args)).toEqual([
      `${nodeImage} AS deps`,
      'deps AS build',
      `${nodeImage} AS runtime`,
    ]);
    const image = only(instructions, 'ARG')[0]?.args;
    const major = Number(/^NODE_IMAGE=node:(\d+)-slim$/.exec(image ?? '')?.[1]);
    // LTS lines are the even ones, and the project needs ≥ 20.19.
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(22);
    expect(pkg.bin.edgesync).toBe('dist/src/main.js');
  });

  it("runs the build's entry point under tini as a numeric non-root user", () => {
    const workdir = only(instructions, 'WORKDIR', 'runtime')[0]?.args ?? '';
    const entrypoint = JSON.parse(only(instructions, 'ENTRYPOINT')[0]?.args ?? '[]') as string[];
    const user = only(instructions, 'USER', 'runtime')[0]?.args ?? '';
    const tsconfig = parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string };
    };
    const built = posix.join(
      tsconfig.compilerOptions.outDir,
      posix.relative(tsconfig.compilerOptions.rootDir, 'src/main.js'),
    );

    expect(entrypoint).toEqual(['tini', '--', 'node', 'dist/src/main.js']);
    expect(JSON.parse(only(instructions, 'CMD')[0]?.args ?? '[]')).toEqual(['run']);
    expect(workdir).toBe('/app');
    expect(entrypoint[3]).toBe(built);
    expect(existsSync(join(REPO, 'src/main.ts'))).toBe(true);
    expect(only(instructions, 'RUN', 'runtime')[0]?.args).toContain('tini');
    expect(user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
  });

  it('checks /healthz on the default listen port without curl, with config and state where the docs say', () => {
    const healthcheck = only(instructions, 'HEALTHCHECK')[0]?.args ?? '';
    const env = runtimeEnv();
    const port = DEFAULT_LISTEN.split(':')[1];

    expect(healthcheck).toContain(`fetch('http://127.0.0.1:${port}/healthz')`);
    expect(healthcheck).toContain('CMD ["node", "-e",');
    expect(healthcheck).not.toContain('curl');
    expect(only(instructions, 'EXPOSE').map((i) => i.args)).toEqual([port]);
    expect(env).toContain('EDGESYNC_CONFIG=/config');
    expect(env).toContain('EDGESYNC_STATE_DIR=/var/lib/edgesync');
  });

  it("sizes V8's heap from the pod's memory limit: a share of it, no fixed heap cap, a small young generation", () => {
    const env = runtimeEnv();
    expect(env).toContain(
      'NODE_OPTIONS="--enable-source-maps --max-semi-space-size=4 --max-old-space-size-percentage=70"',
    );
    // A fixed old-generation cap turns a bigger repository into a crash loop (docs/performance.md).
    expect(env).not.toMatch(/max-old-space-size=|max-heap-size/);
  });

  it('runs a Node that has --max-old-space-size-percentage (Node 24)', () => {
    expect(readFileSync(join(REPO, 'Dockerfile'), 'utf8')).toMatch(/^ARG NODE_IMAGE=node:24-slim$/m);
  });
});

/** The limits of docs/performance.md's "Memory limit per number of resources" table, as `256Mi up to 10,000`. */
function memoryLimits(unit: string): string[] {
  const doc = readFileSync(join(REPO, 'docs/performance.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Memory limit per number of resources'));
  const limits = [...section.matchAll(/^\| up to ([\d,]+) \| (\d+) MiB \|/gm)].map(
    ([, resources, mib]) => `${mib}${unit} up to ${resources}`,
  );
  expect(limits).toHaveLength(3);
  return limits;
}

/** A YAML file's text with its comment lines run together, as one sentence reads across them. */
function commentsOf(file: string): string {
  return readFileSync(join(REPO, file), 'utf8').replace(/\n\s*#\s*/g, ' ');
}

describe('deploy/docker-compose.yml', () => {
  const compose = parse(readFileSync(join(REPO, 'deploy/docker-compose.yml'), 'utf8')) as {
    services: Record<string, Record<string, unknown>>;
    secrets: Record<string, { file: string }>;
  };
  const edgesync = compose.services.edgesync as {
    command: string[];
    environment: Record<string, string>;
    volumes: string[];
    secrets: string[];
    build: { context: string; dockerfile: string };
    stop_grace_period: string;
    read_only: boolean;
    mem_limit: string;
  };
  const gitSync = compose.services['git-sync'] as { image: string; command: string[]; volumes: string[] };

  it('runs edgesync with flags it knows, reading secrets from files that are mounted', () => {
    const flags = checkRunArgs(edgesync.command);

    expect(flags.get('--access-key-file')).toBe('/run/secrets/access-key');
    expect(flags.get('--webhook-secret-file')).toBe('/run/secrets/webhook-secret');
    // Every credential flag reads a mounted compose secret, and every mounted secret is read.
    const fileFlags = [...flags].filter(([flag]) => flag.endsWith('-file')).map(([, value]) => value);
    expect(fileFlags).toHaveLength(5);
    expect(edgesync.secrets.map((s) => `/run/secrets/${s}`)).toEqual(fileFlags);
    // Each secret the service mounts is declared at the top level, from a file.
    for (const name of edgesync.secrets)
      expect(compose.secrets[name]?.file, name).toEqual(expect.any(String));
    expect(Object.keys(edgesync.environment).filter((name) => !isKnownEnv(name))).toEqual([]);
    // Container secret files: the secrets directory is a read-only mount.
    expect(edgesync.volumes).toContain(`./secrets/app:${edgesync.environment.EDGESYNC_SECRETS_DIR}:ro`);
    expect(existsSync(resolve(REPO, 'deploy', edgesync.build.context, edgesync.build.dockerfile))).toBe(true);
    expect(Number.parseInt(edgesync.stop_grace_period, 10)).toBeGreaterThan(DEFAULT_SHUTDOWN_TIMEOUT_S);
    expect(edgesync.read_only).toBe(true);
  });

  it("sets a memory limit and states the one per number of resources that docs/performance.md's table gives", () => {
    expect(commentsOf('deploy/docker-compose.yml')).toContain(
      `Set it by the number of resources: ${memoryLimits('m').join(', ')}`,
    );
    expect(memoryLimits('m').map((l) => l.split(' ')[0])).toContain(edgesync.mem_limit);
  });

  it('keeps the state in PostgreSQL only with the postgres profile: a file store by default', () => {
    const postgres = compose.services.postgres as {
      profiles: string[];
      environment: Record<string, string>;
      secrets: string[];
      healthcheck: { test: string[] };
    };
    const dependsOn = (edgesync as unknown as { depends_on: Record<string, Record<string, unknown>> })
      .depends_on;

    expect(postgres.profiles).toEqual(['postgres']);
    expect(postgres.environment.POSTGRES_PASSWORD_FILE).toBe(`/run/secrets/${postgres.secrets[0]}`);
    expect(compose.secrets[postgres.secrets[0] as string]?.file).toEqual(expect.any(String));
    expect(postgres.healthcheck.test).toContain('pg_isready');
    // Unset, the variable is empty, and an empty EDGESYNC_STATE_URL means the file store.
    expect(edgesync.environment.EDGESYNC_STATE_URL).toBe('$' + '{EDGESYNC_STATE_URL:-}');
    expect(dependsOn.postgres).toEqual({ condition: 'service_healthy', required: false });
    // The password file is the database's: edgesync reads its password from the URL.
    expect(edgesync.secrets).not.toContain(postgres.secrets[0]);
  });

  it('points edgesync at the git-sync link in the shared volume, mounted read-only at the same path', () => {
    const args = gitSyncCheckout(gitSync.command);
    const repoVolume = gitSync.volumes[0]?.split(':') ?? [];

    expect(gitSync.image).toMatch(/^registry\.k8s\.io\/git-sync\/git-sync:v4\.\d+\.\d+$/);
    expect(posix.join(args.root, args.link)).toBe(edgesync.environment.EDGESYNC_CONFIG);
    expect(edgesync.volumes).toContain(`${repoVolume[0]}:${repoVolume[1]}:ro`);
    expect(repoVolume[1]).toBe(args.root);
    expect(edgesync.volumes).toContain(`state:${edgesync.environment.EDGESYNC_STATE_DIR}`);
  });
});

/** One variant of deploy/kubernetes: its kustomization's manifests, parsed, with the shared ones. */
function variant(dir: string) {
  const load = (path: string) =>
    parseAllDocuments(readFileSync(join(REPO, 'deploy/kubernetes', path), 'utf8')).map((doc) => {
      expect(doc.errors, path).toEqual([]);
      // biome-ignore lint/suspicious/noExplicitAny: a manifest is free-form; the test walks it by hand
      return doc.toJS() as any;
    });
  const kustomization = load(`${dir}/kustomization.yaml`)[0] as { resources: string[] };
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const docs: any[] = kustomization.resources.flatMap((resource) => {
    const path = posix.join(dir, resource);
    if (!resource.endsWith('.yaml')) {
      const inner = load(`${path}/kustomization.yaml`)[0] as { resources: string[] };
      return inner.resources.flatMap((file) => load(posix.join(path, file)));
    }
    return load(path);
  });
  const workload = docs.find((d) => d.kind === 'StatefulSet' || d.kind === 'Deployment');
  const pod = workload.spec.template.spec;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const container = (name: string): any => pod.containers.find((c: { name: string }) => c.name === name);
  const edgesync = container('edgesync');
  /** The edgesync container's plain environment, name → value. */
  const env: Record<string, string> = Object.fromEntries(
    edgesync.env
      .filter((e: { value?: string }) => e.value !== undefined)
      .map((e: { name: string; value: string }) => [e.name, e.value]),
  );
  return { kustomization, docs, workload, pod, edgesync, gitSync: container('git-sync'), env };
}

const VARIANTS = ['single', 'ha'] as const;

describe.each(VARIANTS)('deploy/kubernetes/%s', (dir) => {
  const { kustomization, docs, workload, pod, edgesync, gitSync, env } = variant(dir);
  const service = docs.find((d) => d.kind === 'Service' && d.metadata.name === 'edgesync');

  it('lists manifests that exist, and every one parses', () => {
    for (const resource of kustomization.resources) {
      expect(existsSync(join(REPO, 'deploy/kubernetes', dir, resource)), resource).toBe(true);
    }
    expect(docs.every((d) => typeof d.kind === 'string')).toBe(true);
  });

  it('runs edgesync with known flags, the key from a mounted Secret, probes, limits and a read-only root', () => {
    const flags = checkRunArgs(edgesync.args);
    const mounts: { mountPath: string; name: string; readOnly?: boolean }[] = edgesync.volumeMounts;
    const secretVolume = pod.volumes.find(
      (v: { secret?: { secretName: string } }) => v.secret?.secretName === 'edgesync',
    );

    const secretFlags = [
      '--access-key-file',
      '--webhook-secret-file',
      '--notify-webhook-secret-file',
      '--notify-slack-webhook-file',
      '--github-token-file',
    ];
    for (const flag of secretFlags) {
      const file = String(flags.get(flag));
      const mount = mounts.find((m) => file.startsWith(`${m.mountPath}/`));
      expect(mount?.name, `${file} is on a mounted volume`).toBe(secretVolume.name);
    }
    expect(Object.keys(env).filter((name) => !isKnownEnv(name))).toEqual([]);
    // The hooks alone on --listen; probes and metrics on --metrics-listen.
    const portOf = (flag: string): number => Number(String(flags.get(flag)).split(':')[1]);
    expect(edgesync.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    // /readyz answers 200 for a standby too: it stays in the Service (docs/state.md, Leadership).
    expect(edgesync.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    expect(edgesync.ports).toEqual([
      { name: 'http', containerPort: portOf('--listen') },
      { name: 'metrics', containerPort: portOf('--metrics-listen') },
    ]);
    expect(workload.spec.template.metadata.annotations['prometheus.io/port']).toBe(
      String(portOf('--metrics-listen')),
    );
    expect(edgesync.resources.requests).toBeDefined();
    // The limit docs/performance.md gives for up to 30,000 resources (the next test).
    expect(edgesync.resources.limits.memory).toBe('384Mi');
    for (const c of [edgesync, gitSync]) {
      expect(c.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(c.securityContext.runAsUser).toBeGreaterThan(0);
    }
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(DEFAULT_SHUTDOWN_TIMEOUT_S);
  });

  it("states the memory limit per number of resources that docs/performance.md's table gives", () => {
    const manifest = `deploy/kubernetes/${dir}/${workload.kind.toLowerCase()}.yaml`;
    expect(commentsOf(manifest)).toContain(
      `Set it by the number of resources: ${memoryLimits('Mi').join(', ')}`,
    );
    expect(memoryLimits('Mi').map((l) => l.split(' ')[0])).toContain(edgesync.resources.limits.memory);
  });

  it('sets no heap cap: V8 sizes its heap from the memory limit', () => {
    const text = JSON.stringify(docs);
    expect(text).not.toMatch(/max-old-space-size|max-heap-size|NODE_OPTIONS/);
  });

  it('gives container secrets both ways: a secretKeyRef variable and a Secret mounted as --secrets-dir', () => {
    const variables: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[] =
      edgesync.env;
    const fromSecrets = variables.filter(
      (e) => e.valueFrom?.secretKeyRef !== undefined && e.name.startsWith('EDGESYNC_SECRET_'),
    );
    const mount = edgesync.volumeMounts.find(
      (m: { mountPath: string }) => m.mountPath === env.EDGESYNC_SECRETS_DIR,
    );
    const volume = pod.volumes.find((v: { name: string }) => v.name === mount?.name);

    expect(fromSecrets.length).toBeGreaterThan(0);
    for (const e of fromSecrets) {
      expect(e.name).toMatch(/^EDGESYNC_SECRET_[A-Z0-9_]+$/);
      expect(e.valueFrom?.secretKeyRef?.name).toBe('edgesync-app-secrets');
    }
    expect(mount?.readOnly).toBe(true);
    expect(volume?.secret?.secretName).toBe('edgesync-app-secrets');
  });

  it('shares the git-sync checkout: the link edgesync reads is the one git-sync writes', () => {
    const args = gitSyncCheckout(gitSync.args);
    const repoMount = edgesync.volumeMounts.find((m: { name: string }) => m.name === 'repo');
    const writerMount = gitSync.volumeMounts.find((m: { name: string }) => m.name === 'repo');

    expect(gitSync.image).toMatch(/^registry\.k8s\.io\/git-sync\/git-sync:v4\.\d+\.\d+$/);
    expect(posix.join(args.root, args.link)).toBe(env.EDGESYNC_CONFIG);
    expect(repoMount).toEqual({ name: 'repo', mountPath: args.root, readOnly: true });
    expect(writerMount.mountPath).toBe(args.root);
  });

  it('sends commit statuses to the repository git-sync clones, and names each secret key once', () => {
    const flags = checkRunArgs(edgesync.args);
    const remote = gitSync.args.find((arg: string) => arg.startsWith('--repo='))?.slice('--repo='.length);
    const repo = parseRemoteUrl(String(remote));
    const keys = [
      ...readFileSync(join(REPO, 'deploy/kubernetes', dir, 'kustomization.yaml'), 'utf8').matchAll(
        /--from-file=([\w-]+)=/g,
      ),
    ].map((m) => m[1]);

    expect(`${repo?.owner}/${repo?.name}`).toBe(flags.get('--github-repo'));
    // Every file flag's file is a key of a Secret as the kustomization creates it.
    for (const [flag, value] of flags)
      if (flag.endsWith('-file')) expect(keys, flag).toContain(String(value).replace(/^\/etc\/[\w-]+\//, ''));
  });

  it('exposes the webhook port through a Service', () => {
    expect(service.spec.selector).toEqual(workload.spec.selector.matchLabels);
    expect(service.spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);
  });
});

describe('deploy/kubernetes: the two variants', () => {
  const single = variant('single');
  const ha = variant('ha');

  it('single: one StatefulSet pod, its state on a volume claim of its own mounted at EDGESYNC_STATE_DIR', () => {
    const claim = single.workload.spec.volumeClaimTemplates[0];
    const stateMount = single.edgesync.volumeMounts.find((m: { name: string }) => m.name === 'state');
    const governing = single.docs.find(
      (d) => d.kind === 'Service' && d.metadata.name === single.workload.spec.serviceName,
    );

    expect(single.workload.kind).toBe('StatefulSet');
    expect(single.workload.spec.replicas).toBe(1);
    expect(claim.metadata.name).toBe('state');
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
    expect(single.workload.spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
    expect(single.pod.volumes.find((v: { name: string }) => v.name === 'state')).toBeUndefined();
    expect(stateMount.mountPath).toBe(single.env.EDGESYNC_STATE_DIR);
    expect(stateMount.readOnly).toBeUndefined();
    expect(governing?.spec.clusterIP).toBe('None');
    expect(single.edgesync.env.some((e: { name: string }) => e.name === 'EDGESYNC_STATE_URL')).toBe(false);
  });

  it('ha: two replicas on Postgres, the URL and password from a Secret, a PodDisruptionBudget, no state volume', () => {
    const flags = checkRunArgs(ha.edgesync.args);
    const url = ha.edgesync.env.find((e: { name: string }) => e.name === 'EDGESYNC_STATE_URL');
    const passwordFile = String(flags.get('--state-password-file'));
    const passwordMount = ha.edgesync.volumeMounts.find((m: { mountPath: string }) =>
      passwordFile.startsWith(`${m.mountPath}/`),
    );
    const passwordVolume = ha.pod.volumes.find((v: { name: string }) => v.name === passwordMount?.name);
    const pdb = ha.docs.find((d) => d.kind === 'PodDisruptionBudget');

    expect(ha.workload.kind).toBe('Deployment');
    expect(ha.workload.spec.replicas).toBe(2);
    expect(ha.workload.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    expect(url).toEqual({
      name: 'EDGESYNC_STATE_URL',
      valueFrom: { secretKeyRef: { name: 'edgesync-state', key: 'url' } },
    });
    expect(passwordVolume.secret).toMatchObject({ secretName: 'edgesync-state' });
    expect(passwordVolume.secret.items).toEqual([
      { key: 'password', path: passwordFile.slice(passwordMount.mountPath.length + 1) },
    ]);
    expect(passwordMount.readOnly).toBe(true);
    // Both replicas share one state: the instance is named, not derived per pod.
    expect(flags.get('--instance')).toEqual(expect.any(String));
    expect(pdb.spec).toEqual({ minAvailable: 1, selector: ha.workload.spec.selector });
    expect(ha.pod.affinity.podAntiAffinity).toBeDefined();
    expect(ha.env.EDGESYNC_STATE_DIR).toBeUndefined();
    expect(ha.pod.volumes.some((v: { persistentVolumeClaim?: unknown }) => v.persistentVolumeClaim)).toBe(
      false,
    );
  });

  it('keeps the two pods in step: the same containers but for how the state is reached', () => {
    const withoutState = (v: ReturnType<typeof variant>) => {
      const strip = (c: {
        args?: string[];
        env?: { name: string }[];
        volumeMounts?: { name: string }[];
      }) => ({
        ...c,
        args: c.args?.filter((a) => !/^--(instance|state-password-file)=/.test(a)),
        env: c.env?.filter((e) => !/^EDGESYNC_STATE_(DIR|URL)$/.test(e.name)),
        volumeMounts: c.volumeMounts?.filter((m) => !/^state/.test(m.name)),
      });
      return {
        containers: v.pod.containers.map(strip),
        volumes: v.pod.volumes.filter((vol: { name: string }) => !/^state/.test(vol.name)),
      };
    };
    expect(withoutState(ha)).toEqual(withoutState(single));
  });
});
