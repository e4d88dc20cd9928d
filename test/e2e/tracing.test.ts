import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus } from '@esign/bus';
import { KeyCreate } from '@esign/contracts';
import type { RunningStack } from '@esign/stack';
import { startTestStack, type TestStack } from '../support/test-stack';
import { createLogger } from '@esign/telemetry';
import { makePdf, makePng } from '@esign/testing';

/**
 * What an SRE sees: the services export OpenTelemetry spans over OTLP (here to a small receiver that
 * speaks OTLP/HTTP JSON), and one trace covers a whole sign request across processes.
 */
interface ExportedSpan {
  service: string;
  name: string;
  traceId: string;
  /** Trace ids of the spans this one links to. */
  links: string[];
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}
interface OtlpBody {
  resourceSpans?: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { spans: { name: string; traceId: string; links?: { traceId: string }[] }[] }[];
  }[];
}

const spans: ExportedSpan[] = [];
/** Every OTLP body exactly as exported, to look for what must never be in a span. */
const exported: string[] = [];
let receiver: Server;
let test: TestStack;
let stack: RunningStack;
let bus: Bus;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      exported.push(body);
      const parsed = JSON.parse(body || '{}') as OtlpBody;
      for (const rs of parsed.resourceSpans ?? []) {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans)
          for (const s of ss.spans)
            spans.push({
              service,
              name: s.name,
              traceId: s.traceId,
              links: (s.links ?? []).map((l) => l.traceId),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  test = await startTestStack({
    label: 'trace',
    services: ['key', 'document-store', 'pdf-signer', 'gateway'],
    env: {
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
      // The outbox is polled often here, so that idle polls would show up if they were traced.
      OUTBOX_POLL_MS: '100',
    },
  });
  stack = test.stack;
  bus = await connectBus({
    url: test.natsUrl,
    name: 'e2e',
    prefix: test.busPrefix,
    logger: createLogger({ service: 'e2e', level: 'error' }),
    timeoutMs: 10_000,
  });
}, 120_000);

afterAll(async () => {
  await bus?.drain();
  await test?.stop();
  receiver?.close();
});

describe('tracing', () => {
  it('follows one sign request through the gateway, the signer and the document store in one trace', async () => {
    const { apiKey } = await bus.request(KeyCreate, {
      email: `trace${Date.now()}@example.com`,
      plan: 'business',
    });
    const form = new FormData();
    form.append('signerName', 'Trace');
    form.append('signerEmail', 'trace@example.com');
    form.append(
      'signatureData',
      `data:image/png;base64,${(await makePng({ width: 90, height: 30 })).toString('base64')}`,
    );
    form.append('file', new Blob([new Uint8Array(await makePdf({ pages: 1 }))]), 'traced.pdf');
    const res = await fetch(`${stack.gatewayUrl}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}` },
      body: form,
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();

    const want = [
      'gateway pdf.sign send',
      'pdf-signer pdf.sign process',
      'document-store document.record process',
      // Business has no monthly limit: the key service counts the document from its record's event,
      // which carries the trace on.
      'key events.document.signed process',
    ];
    const traceNames = () => {
      const signing = spans.find((s) => s.service === 'pdf-signer' && s.name === 'pdf.sign process');
      return signing
        ? spans.filter((s) => s.traceId === signing.traceId).map((s) => `${s.service} ${s.name}`)
        : [];
    };
    await expect.poll(traceNames, { timeout: 15_000, interval: 200 }).toEqual(expect.arrayContaining(want));
    const names = traceNames();
    expect(names).toEqual(
      expect.arrayContaining([...want, 'gateway key.verify send', 'key key.verify process']),
    );
    // The HTTP server span of the gateway and the database work of the store belong to the same trace.
    expect(names.some((n) => n.startsWith('gateway ') && /POST/.test(n))).toBe(true);
    expect(names.some((n) => n.startsWith('document-store pg.query'))).toBe(true);
  });

  it('traces the outbox publishing the event as a trace of its own, and leaves idle polls untraced', async () => {
    // By now the outbox has been polled many times; the sign above left one event to publish.
    await expect
      .poll(() => spans.some((s) => s.name === 'outbox publish'), { timeout: 10_000, interval: 100 })
      .toBe(true);
    // Kept on purpose: a window of time is what is under test. A second publish of the event, or an
    // idle poll traced (polls every 100 ms, exported within 100 ms), would show up within it.
    await new Promise((r) => setTimeout(r, 1000));
    const store = spans.filter((s) => s.service === 'document-store');
    const publish = store.filter((s) => s.name === 'outbox publish');
    expect(publish).toHaveLength(1);
    const signTrace = spans.find((s) => s.name === 'pdf.sign process')?.traceId;
    expect(publish[0]?.traceId).not.toBe(signTrace);
    // ...linked to the request that wrote the event, whose trace the event itself carries on.
    expect(publish[0]?.links).toEqual([signTrace]);
    // Every trace the store sent is one of its operations (a request, the outbox, its migration): no
    // trace of a bare poll (begin/select/commit) or of a readiness probe.
    const traces = new Map<string, string[]>();
    for (const s of store) traces.set(s.traceId, [...(traces.get(s.traceId) ?? []), s.name]);
    expect(traces.size).toBeGreaterThanOrEqual(3);
    for (const [traceId, names] of traces) {
      expect(
        names.some((n) => /^(document\.\w+ process|outbox publish|migrate documents)$/.test(n)),
        `trace ${traceId} is only ${names.join(', ')}`,
      ).toBe(true);
    }
  });

  // Last: its find-by-token trace is not one the outbox test above expects.
  it('never exports a signing link token: the page is traced as /s/:token', async () => {
    const token = randomBytes(32).toString('base64url');
    expect((await fetch(`${stack.gatewayUrl}/s/${token}`)).status).toBe(404);
    const call = await fetch(`${stack.gatewayUrl}/signing/api/request`, {
      headers: { 'X-Signing-Token': token },
    });
    expect(call.status).toBe(404);
    await expect
      .poll(() => exported.some((b) => b.includes('/s/:token')), { timeout: 10_000, interval: 100 })
      .toBe(true);
    // Both requests' traces exported whole (the store's lookup, and the gateway's HTTP span that ends
    // each trace, named `GET`) before looking for the token in them.
    const lookups = () =>
      spans.filter((s) => s.service === 'document-store' && s.name === 'signing.find-by-token process');
    const servedLookups = () =>
      lookups().filter((l) =>
        spans.some((s) => s.traceId === l.traceId && s.service === 'gateway' && s.name.startsWith('GET')),
      ).length;
    await expect.poll(servedLookups, { timeout: 10_000, interval: 100 }).toBe(2);
    expect(exported.some((b) => b.includes(token))).toBe(false);
  });
});
