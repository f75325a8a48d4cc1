import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createUnzip } from 'node:zlib';
import type { Context, Middleware, Next } from 'koa';
import { DomainError } from '../../domain/errors';

// Request bodies are JSON in UTF-8 (RFC 8259 8.1), uncompressed or gzip/deflate, up to a limit. Read here from
// the bytes rather than by a generic body parser, which decodes with replacement: a byte that is not UTF-8
// became U+FFFD and was stored as if the client had sent it.

/** Methods whose body is read; a DELETE's body is admitted (typed) but never read, as before. */
const READ_METHODS = ['POST', 'PUT', 'PATCH'];
const BODY_METHODS = [...READ_METHODS, 'DELETE'];
/** Content codings decoded; `br` and `zstd` are not (the catalog's unsupported_encoding says gzip/deflate). */
const CODINGS = new Set(['identity', 'gzip', 'deflate']);
/** The labels of UTF-8 a client may name (WHATWG Encoding lists `utf8` as one); no charset means UTF-8. */
const UTF8_LABELS = new Set(['utf-8', 'utf8']);

const codingOf = (ctx: Context) => (ctx.get('content-encoding').trim() || 'identity').toLowerCase();

/**
 * A body is `application/json` in UTF-8 with a coding we decode: else 415 before a byte is read, so a client is
 * told what to send rather than having its bytes guessed at.
 */
export async function admitJsonBody(ctx: Context, next: Next): Promise<void> {
  const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && BODY_METHODS.includes(ctx.method)) {
    if (!ctx.is('application/json')) throw new DomainError('unsupported_media_type', 'unsupported_media_type', 'Send the request body as application/json');
    const charset = ctx.request.charset.toLowerCase();
    if (charset && !UTF8_LABELS.has(charset))
      throw new DomainError('unsupported_media_type', 'unsupported_media_type', `Send the request body in UTF-8 (charset=utf-8, or no charset); charset=${charset.slice(0, 40)} is not accepted`);
    const coding = codingOf(ctx);
    if (!CODINGS.has(coding))
      throw new DomainError('unsupported_media_type', 'unsupported_encoding', `Content-Encoding '${coding.slice(0, 40)}' is not supported; send the body uncompressed, or as gzip or deflate`);
  }
  await next();
}

/**
 * Reads a JSON body into `ctx.request.body` (the parsed value; `''` for an empty body) and `rawBody` (the text,
 * which signed callbacks verify). Over `limitBytes` once decompressed: 413. Not UTF-8 or not JSON: 400.
 */
export function readJsonBody(limitBytes: number): Middleware {
  return async (ctx: Context, next: Next) => {
    if (READ_METHODS.includes(ctx.method) && ctx.is('application/json')) {
      const text = decodeUtf8(await readBytes(ctx, limitBytes));
      const request = ctx.request as { body?: unknown; rawBody?: string };
      request.rawBody = text;
      request.body = text === '' ? '' : parseJson(text);
    }
    await next();
  };
}

async function readBytes(ctx: Context, limitBytes: number): Promise<Buffer> {
  const coding = codingOf(ctx);
  // A declared length over the limit is refused unread (a compressed body's size is known only once inflated).
  if (coding === 'identity' && ctx.request.length > limitBytes) throw tooLarge(limitBytes);
  if (coding === 'identity') return collect(ctx.req, limitBytes);
  const inflated = createUnzip(); // gzip and deflate alike, by their header
  ctx.req.pipe(inflated);
  try {
    return await collect(inflated, limitBytes);
  } finally {
    ctx.req.unpipe(inflated);
    inflated.destroy();
  }
}

/**
 * The stream's bytes, up to `limitBytes`. The request is never destroyed here: past the limit it is left unread,
 * and Node discards the rest once the 413 is answered, so the client gets its answer.
 */
function collect(stream: Readable | IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (fn: () => void) => {
      stream.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      stream.pause();
      fn();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) settle(() => reject(tooLarge(limitBytes)));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = () => settle(() => reject(new DomainError('invalid_request', 'malformed_json', 'The request body could not be read (a compressed body that does not inflate, or a body cut short)')));
    const onClose = () => onError();
    stream.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
}

const tooLarge = (limitBytes: number) =>
  new DomainError('payload_too_large', 'payload_too_large', `The request body is larger than the limit of ${limitBytes / (1024 * 1024)} MB`);

function decodeUtf8(bytes: Buffer): string {
  try {
    // fatal: a byte sequence that is not UTF-8 is refused, not replaced by U+FFFD. A leading BOM is dropped.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('invalid_request', 'malformed_json', 'The request body is not valid UTF-8; send JSON encoded as UTF-8');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('invalid_request', 'malformed_json', 'The request body is not valid JSON');
  }
}
