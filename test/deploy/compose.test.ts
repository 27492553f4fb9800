/**
 * compose.yaml and its proxy, read as files (no container runtime here): two plantstore
 * instances built from this Dockerfile on the PostgreSQL service, behind a proxy whose
 * configuration exists and checks each instance's /readyz.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { PROJECT } from '../helpers/native-prebuild.js';

interface Service {
  image?: string;
  build?: string;
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }> | string[];
  volumes?: string[];
  ports?: string[];
  stop_grace_period?: string;
  healthcheck?: { test: string[] };
}

test('compose.yaml runs two plantstore instances on PostgreSQL behind a proxy that checks /readyz', () => {
  const compose = parse(readFileSync(join(PROJECT, 'compose.yaml'), 'utf8')) as { services: Record<string, Service> };
  const services = Object.entries(compose.services);
  const instances = services.filter(([, service]) => service.build === '.');
  assert.equal(instances.length, 2, 'two instances built from the Dockerfile');
  const postgres = services.find(([, service]) => service.image?.startsWith('postgres:'));
  assert.ok(postgres !== undefined, 'a PostgreSQL service');
  assert.ok(postgres[1].healthcheck !== undefined);
  for (const [name, instance] of instances) {
    assert.match(instance.environment?.DATABASE_URL ?? '', new RegExp(`^postgres://[^@]+@${postgres[0]}:5432/`), `${name} uses the PostgreSQL service`);
    assert.deepEqual(instance.depends_on, { [postgres[0]]: { condition: 'service_healthy' } });
    assert.ok(Number.parseInt(instance.stop_grace_period ?? '0', 10) > 10, 'longer than the 10 s drain');
  }

  const proxy = services.find(([, service]) => service.image?.startsWith('caddy:'));
  assert.ok(proxy !== undefined, 'a proxy');
  const mount = proxy[1].volumes?.find((volume) => volume.endsWith(':/etc/caddy/Caddyfile:ro'));
  const caddyfile = join(PROJECT, mount?.split(':')[0] ?? '');
  assert.ok(existsSync(caddyfile), `${caddyfile} exists`);
  const config = readFileSync(caddyfile, 'utf8');
  const upstreams = /reverse_proxy ([^{]+)\{/.exec(config)?.[1]?.trim().split(/\s+/);
  assert.deepEqual(upstreams, instances.map(([name]) => `${name}:8080`));
  assert.match(config, /^\s*health_uri \/readyz$/m);
  assert.deepEqual(proxy[1].ports, ['127.0.0.1:8080:8080']);
});
