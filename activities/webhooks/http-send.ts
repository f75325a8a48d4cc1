import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { checkAddress, guardedLookup, SsrfRefusedError, type SsrfOptions } from '../../platform/ssrf';

// One HTTP POST to a webhook endpoint, with Node's http/https rather than fetch so we own the two things
// that matter against SSRF: the DNS lookup (guardedLookup, at connect time) and redirects (never followed:
// Node's client does not follow them, and a 3xx is reported as such). The whole exchange, body included,
// is bounded in time and the response body in size.

export const MAX_RESPONSE_BYTES = 64 * 1024;
const EXCERPT_BYTES = 200;

export interface PostRequest extends SsrfOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes?: number;
}

export type PostFailure = 'ssrf_refused' | 'timeout' | 'connection';

export interface PostResult {
  /** Null when no response status arrived (refused, timeout, connection error). */
  statusCode: number | null;
  headers: IncomingHttpHeaders;
  latencyMs: number;
  failure: PostFailure | null;
  /** Human-readable cause of a failure: `ECONNREFUSED`, `loopback address`, ... */
  detail: string | null;
  /** Bytes of the response body read before we stopped (end of body, size bound or time bound). */
  responseBytes: number;
  /** The body was longer than the bound (or still streaming at the deadline) and the socket was closed. */
  truncated: boolean;
  /** The first bytes of the response, for the merchant's delivery log. */
  excerpt: string;
}

export function postWebhook(req: PostRequest): Promise<PostResult> {
  const started = Date.now();
  const limit = req.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const u = new URL(req.url);
  const hostname = u.hostname.replace(/^\[|\]$/g, '');

  const failed = (failure: PostFailure, detail: string): PostResult => ({
    statusCode: null,
    headers: {},
    latencyMs: Date.now() - started,
    failure,
    detail,
    responseBytes: 0,
    truncated: false,
    excerpt: '',
  });

  // An IP literal never goes through lookup, so it is judged here.
  if (isIP(hostname)) {
    const c = checkAddress(hostname, req);
    if (!c.ok) return Promise.resolve(failed('ssrf_refused', c.reason));
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return Promise.resolve(failed('ssrf_refused', `scheme ${u.protocol} is not allowed`));

  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let response: http.IncomingMessage | null = null;
    let bytes = 0;
    const head: Buffer[] = [];
    let headBytes = 0;

    const finish = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Nothing more is wanted from this connection (agent: false, so it is not pooled either).
      request.destroy();
      resolve(r);
    };
    const answered = (truncated: boolean): PostResult => ({
      statusCode: response!.statusCode ?? null,
      headers: response!.headers,
      latencyMs: Date.now() - started,
      failure: null,
      detail: null,
      responseBytes: bytes,
      truncated,
      excerpt: Buffer.concat(head).toString('utf8').slice(0, EXCERPT_BYTES),
    });

    const mod = u.protocol === 'https:' ? https : http;
    const request = mod.request({
      protocol: u.protocol,
      hostname,
      port: u.port || undefined,
      path: `${u.pathname}${u.search}`,
      method: 'POST',
      headers: { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
      lookup: guardedLookup(req) as never,
      // A fresh connection per attempt: the lookup runs for each one, and no socket outlives its check.
      agent: false,
    });

    const timer = setTimeout(() => {
      // Once the status is in, the receiver has answered; a body still streaming at the deadline is cut off.
      if (response) finish(answered(true));
      else finish(failed('timeout', `no response within ${req.timeoutMs} ms`));
    }, req.timeoutMs);

    request.on('response', (res) => {
      response = res;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (headBytes < EXCERPT_BYTES) {
          head.push(chunk.subarray(0, EXCERPT_BYTES - headBytes));
          headBytes += Math.min(chunk.length, EXCERPT_BYTES - headBytes);
        }
        if (bytes > limit) finish(answered(true));
      });
      res.on('end', () => finish(answered(false)));
      res.on('error', () => finish(answered(true)));
      res.on('close', () => finish(answered(!res.complete)));
    });
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (response) return finish(answered(true));
      if (err instanceof SsrfRefusedError) return finish(failed('ssrf_refused', err.reason));
      finish(failed('connection', err.code ?? err.message));
    });
    request.end(req.body);
  });
}
