// Static checks of the production topology (docker/compose.yaml and docker/Dockerfile): no
// Docker engine is needed, so wiring mistakes are caught where they are cheapest.
import { WORKER_NODE_FLAGS } from '../../composition/node-flags';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { loadConfig } from '../../composition/config';
import { searchAttributeKeys } from '../../adapters/temporal/contracts';

const root = path.resolve(__dirname, '../..');
const dockerDir = path.join(root, 'docker');

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[] | string;
  entrypoint?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  volumes?: string[];
  container_name?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

// Compose resolves YAML merge keys (`<<: *anchor`), as the smtp service's environment uses.
const compose = YAML.parse(fs.readFileSync(path.join(dockerDir, 'compose.yaml'), 'utf8'), { merge: true }) as Compose;
const services = compose.services;
const herald = ['api', 'smtp', 'worker'] as const;

/** Compose's own interpolation for ${VAR}, ${VAR:-default} and ${VAR:?error}; $$ is a literal $. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g, (match, name?: string, op?: string, arg?: string) => {
    if (match === '$$') return '$';
    const set = env[name!];
    if (set) return set;
    if (op === ':?') throw new Error(`${name} is required: ${arg}`);
    return op === ':-' ? arg! : '';
  });
}

function envOf(service: string, env: Record<string, string> = { SMTP_RELAY_URL: 'smtp://relay.example.com:587' }) {
  return Object.fromEntries(
    Object.entries(services[service].environment ?? {}).map(([k, v]) => [k, interpolate(String(v), env)]),
  );
}

function dependsOn(service: Service): Record<string, { condition: string }> {
  const deps = service.depends_on ?? {};
  return Array.isArray(deps) ? Object.fromEntries(deps.map((d) => [d, { condition: 'service_started' }])) : deps;
}

/** "host:container" or "ip:host:container" → [host, container]. */
function published(port: string): [string, string] {
  const parts = port.split(':');
  return [parts[parts.length - 2], parts[parts.length - 1]];
}

function script(service: Service): string {
  return [...(service.entrypoint ?? []), ...[service.command ?? []].flat()].join(' ');
}

describe('docker/compose.yaml', () => {
  it('defines the whole topology', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api', 'mongo', 'smtp', 'temporal', 'temporal-db', 'temporal-schema', 'temporal-setup', 'temporal-ui', 'worker'].sort(),
    );
    expect(services.temporal.image).toMatch(/^temporalio\/(server|auto-setup):/);
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:/);
    expect(services['temporal-setup'].image).toMatch(/^temporalio\/admin-tools:/);
    expect(services.mongo.image).toMatch(/^mongo:7(\.|$)/);
  });

  it('pins every image to a version (a tag, never latest)', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, image: service.image }).toEqual({ name, image: expect.any(String) });
      const image = service.image!.split('@')[0];
      const slash = image.lastIndexOf('/');
      const colon = image.lastIndexOf(':');
      expect({ name, tagged: colon > slash }).toEqual({ name, tagged: true });
      expect({ name, tag: image.slice(colon + 1) }).not.toEqual({ name, tag: 'latest' });
      expect(image).not.toContain('${');
    }
  });

  it('keeps the Temporal server and its admin tools on the same version', () => {
    const version = (image?: string) => image?.split(':')[1];
    expect(version(services['temporal-setup'].image)).toBe(version(services.temporal.image));
    expect(version(services['temporal-schema'].image)).toBe(version(services.temporal.image));
  });

  it.each(herald)('builds %s from docker/Dockerfile and runs its process', (name) => {
    // A worker runs with its V8 limits (composition/node-flags.ts).
    const commands = { api: ['dist/api/main.js'], smtp: ['dist/smtp/main.js'], worker: [...WORKER_NODE_FLAGS, 'dist/worker.js'] };
    const service = services[name];
    expect(service.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
    // Compose resolves the context from the compose file's folder, the Dockerfile from the context.
    const dockerfile = path.resolve(dockerDir, service.build!.context, service.build!.dockerfile);
    expect(dockerfile).toBe(path.join(dockerDir, 'Dockerfile'));
    expect(service.command).toEqual(['node', ...commands[name]]);
  });

  it.each(herald)('wires %s to Temporal, MongoDB and the relay, listening on all interfaces', (name) => {
    const env = envOf(name);
    const [temporalHost, temporalPort] = env.TEMPORAL_ADDRESS.split(':');
    expect(services[temporalHost]?.image).toMatch(/^temporalio\/(server|auto-setup):/);
    expect(temporalPort).toBe('7233');
    expect(env.TEMPORAL_NAMESPACE).toBe('default');

    const mongoUri = new URL(env.MONGODB_URI);
    expect(mongoUri.protocol).toBe('mongodb:');
    expect(services[mongoUri.hostname]?.image).toMatch(/^mongo:/);
    expect(mongoUri.port).toBe('27017');
    const mongoCommand = services[mongoUri.hostname].command as string[];
    const replSet = mongoCommand[mongoCommand.indexOf('--replSet') + 1];
    expect(mongoUri.searchParams.get('replicaSet')).toBe(replSet);

    expect(env.HERALD_BIND_HOST).toBe('0.0.0.0');
    expect(env.HERALD_PUBLIC_URL).toBe('http://localhost:8080');
    expect(env.SMTP_RELAY_URL).toBe('smtp://relay.example.com:587');
  });

  it('refuses to start without SMTP_RELAY_URL instead of sending mail nowhere', () => {
    expect(() => envOf('worker', {})).toThrow(/SMTP_RELAY_URL is required/);
  });

  it("passes Herald's own configuration validation with the compose environment", () => {
    for (const name of herald) {
      const config = loadConfig(envOf(name));
      expect(config).toMatchObject({ temporalAddress: 'temporal:7233', bindHost: '0.0.0.0', apiPort: 8080, smtpPort: 2525 });
    }
  });

  it('initiates the replica set the URI names, with a member address other containers reach', () => {
    const check = services.mongo.healthcheck!.test.join(' ');
    expect(check).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(check).toMatch(/isWritablePrimary/);
  });

  it('registers every search attribute the workflows use, in the namespace Herald uses', () => {
    const setup = script(services['temporal-setup']);
    expect(setup).toContain('--address temporal:7233');
    expect(setup).toMatch(/search-attribute create[^\n]*--namespace default/);
    for (const key of Object.values(searchAttributeKeys)) {
      expect(setup).toMatch(new RegExp(`--name ${key.name} --type ${key.type.replace('_', '')}\\b`, 'i'));
    }
  });

  it('publishes the api on 8080, smtp on 2525 and the Temporal UI on 8233', () => {
    expect(services.api.ports?.map(published)).toContainEqual(['8080', '8080']);
    expect(services.smtp.ports?.map(published)).toContainEqual(['2525', '2525']);
    expect(services['temporal-ui'].ports?.map(published)).toContainEqual(['8233', '8080']);
    expect(envOf('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('takes SMTP AUTH only after STARTTLS, with the key and certificate mounted from docker/certs', () => {
    const env = envOf('smtp');
    expect(env).toMatchObject({ HERALD_SMTP_REQUIRE_TLS: 'true', HERALD_SMTP_TLS_KEY: '/certs/smtp-key.pem', HERALD_SMTP_TLS_CERT: '/certs/smtp-cert.pem' });
    expect(services.smtp.volumes).toEqual(['${HERALD_SMTP_CERTS:-./certs}:/certs:ro']);
    expect(loadConfig(env)).toMatchObject({ smtpRequireTls: true, smtpTlsKeyFile: '/certs/smtp-key.pem', smtpTlsCertFile: '/certs/smtp-cert.pem' });
  });

  it('health-checks the api on its liveness route and smtp on its port', () => {
    expect(services.api.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:8080/healthz');
    expect(services.smtp.healthcheck!.test.join(' ')).toContain("connect(2525, '127.0.0.1')");
  });

  it('leaves the worker scalable: no published ports, no fixed container name', () => {
    expect(services.worker.ports ?? []).toEqual([]);
    for (const [name, service] of Object.entries(services)) {
      expect({ name, container_name: service.container_name }).toEqual({ name, container_name: undefined });
    }
  });

  it('depends only on services that exist, and on health or completion where it can', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(dependsOn(service))) {
        expect({ name, dep, exists: dep in services }).toEqual({ name, dep, exists: true });
        if (condition === 'service_healthy') {
          expect({ name, dep, healthcheck: Boolean(services[dep].healthcheck) }).toEqual({ name, dep, healthcheck: true });
        }
      }
    }
    for (const name of herald) {
      expect(dependsOn(services[name])).toEqual({
        mongo: { condition: 'service_healthy' },
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
  });

  it('declares the named volumes that hold the data', () => {
    const named = Object.values(services)
      .flatMap((s) => s.volumes ?? [])
      .map((v) => v.split(':')[0])
      .filter((source) => !source.startsWith('.') && !source.startsWith('/') && !source.startsWith('$')); // bind mounts are not named volumes
    expect(named.sort()).toEqual(['mongo-data', 'temporal-db-data']);
    expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(['mongo-data', 'temporal-db-data']);
  });
});

describe('docker/Dockerfile', () => {
  const text = fs.readFileSync(path.join(dockerDir, 'Dockerfile'), 'utf8');
  // Instructions, with continuation lines joined and comments dropped.
  const instructions = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: string[][] = [];
  for (const line of instructions) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages.at(-1)?.push(line);
  }
  const final = stages.at(-1) ?? [];
  const args = Object.fromEntries(
    instructions.filter((l) => /^ARG\s+\w+=/.test(l)).map((l) => l.slice(4).trim().split('=') as [string, string]),
  );
  const baseImages = stages.map((s) => s[0].split(/\s+/)[1].replace(/\$\{(\w+)\}/g, (_m, n: string) => args[n] ?? ''));

  it('is multi-stage on Debian Node 20', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const image of baseImages) expect(image).toMatch(/^node:20[.\w-]*-bookworm(-slim)?$/);
  });

  it('compiles, then prebuilds the workflow bundle with an npm script that exists', () => {
    const runs = instructions.filter((l) => l.startsWith('RUN '));
    expect(runs.some((l) => l.includes('npm run build'))).toBe(true);
    expect(runs.some((l) => l.includes('npm run bundle-workflows'))).toBe(true);
    const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const [, script] of text.matchAll(/npm run ([\w:-]+)/g)) expect({ script, defined: script in scripts }).toEqual({ script, defined: true });
  });

  it('copies every source folder the build compiles', () => {
    const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    const copied = instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from')).map((l) => l.split(/\s+/)[1]);
    for (const folder of tsconfig.include.filter((f) => f !== 'bench')) expect(copied).toContain(folder);
  });

  it('ships only dist and production dependencies, as the unprivileged node user', () => {
    expect(final.filter((l) => l.startsWith('USER ')).at(-1)).toBe('USER node');
    expect(text).toMatch(/npm ci --omit=dev --ignore-scripts/);
    const env = final.filter((l) => l.startsWith('ENV ')).join(' ');
    expect(env).toMatch(/NODE_ENV=production/);
    expect(env).toMatch(/HERALD_BIND_HOST=0\.0\.0\.0/);
    // Workers load the bundle built in the build stage instead of bundling at every start.
    expect(env).toMatch(/HERALD_WORKFLOW_BUNDLE=\/app\/dist\/workflow-bundle\.js/);
    const copies = final.filter((l) => l.startsWith('COPY '));
    expect(copies.map((l) => l.split(/\s+/).at(-1)).sort()).toEqual(['./bin', './dist', './node_modules', './package.json']);
    expect(final.at(-1)).toBe('CMD ["node", "dist/api/main.js"]');
  });
});
