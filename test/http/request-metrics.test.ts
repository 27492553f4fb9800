/** The request metrics as prom-client renders them for a scrape. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metrics } from '../../src/http/metrics.js';

test('requests by route, method and status, and cumulative latency buckets by route and method', async () => {
  const metrics = new Metrics();
  metrics.observeRequest('/plants', 'GET', 200, 0.0004);
  metrics.observeRequest('/plants', 'GET', 200, 0.003);
  metrics.observeRequest('/plants', 'GET', 401, 0.02);
  metrics.observeRequest('/plants/{id}', 'DELETE', 204, 30);
  const lines = new Set((await metrics.registry.metrics()).split('\n'));
  for (const line of [
    '# TYPE plantstore_http_requests_total counter',
    'plantstore_http_requests_total{route="/plants",method="GET",status="200"} 2',
    'plantstore_http_requests_total{route="/plants",method="GET",status="401"} 1',
    'plantstore_http_requests_total{route="/plants/{id}",method="DELETE",status="204"} 1',
    '# TYPE plantstore_http_request_duration_seconds histogram',
    'plantstore_http_request_duration_seconds_bucket{le="0.0005",route="/plants",method="GET"} 1',
    'plantstore_http_request_duration_seconds_bucket{le="0.0025",route="/plants",method="GET"} 1',
    'plantstore_http_request_duration_seconds_bucket{le="0.005",route="/plants",method="GET"} 2',
    'plantstore_http_request_duration_seconds_bucket{le="0.01",route="/plants",method="GET"} 2',
    'plantstore_http_request_duration_seconds_bucket{le="0.025",route="/plants",method="GET"} 3',
    'plantstore_http_request_duration_seconds_bucket{le="+Inf",route="/plants",method="GET"} 3',
    'plantstore_http_request_duration_seconds_sum{route="/plants",method="GET"} 0.0234',
    'plantstore_http_request_duration_seconds_count{route="/plants",method="GET"} 3',
    'plantstore_http_request_duration_seconds_bucket{le="10",route="/plants/{id}",method="DELETE"} 0',
    'plantstore_http_request_duration_seconds_bucket{le="+Inf",route="/plants/{id}",method="DELETE"} 1',
    'plantstore_http_request_duration_seconds_count{route="/plants/{id}",method="DELETE"} 1',
  ]) {
    assert.ok(lines.has(line), `missing: ${line}`);
  }
});

test('the request figures live in prom-client: resetMetrics empties them, and counting starts again from zero', async () => {
  const metrics = new Metrics();
  metrics.observeRequest('/plants', 'GET', 200, 0.001);
  metrics.observeRequest('/plants', 'GET', 200, 0.001);
  metrics.registry.resetMetrics();
  assert.doesNotMatch(await metrics.registry.metrics(), /^plantstore_http_request\S*\{/m);
  metrics.observeRequest('/plants', 'GET', 200, 0.001);
  const text = await metrics.registry.metrics();
  assert.match(text, /^plantstore_http_requests_total\{route="\/plants",method="GET",status="200"\} 1$/m);
  assert.match(text, /^plantstore_http_request_duration_seconds_count\{route="\/plants",method="GET"\} 1$/m);
});
