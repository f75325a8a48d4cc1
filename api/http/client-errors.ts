import { maxHeaderSize, STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { errorBody } from './error-handler';
import { newRequestId } from './request-id';

// Requests Node's HTTP parser refuses never reach Koa: by default Node answers them with a bare status line
// (431, 400, 408) and no body. Here they get the one error shape, like every other refusal.

interface Answer {
  status: number;
  body: ReturnType<typeof errorBody>;
}

/** The answer to a parser error, by Node's code for it. */
export function answerToClientError(code: string | undefined, requestId: string): Answer {
  if (code === 'HPE_HEADER_OVERFLOW') {
    const status = 431;
    return { status, body: errorBody('invalid_request', 'request_header_too_large', `The request line and headers are larger than the limit of ${maxHeaderSize / 1024} KB; send a shorter URL or fewer headers`, requestId) };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    const status = 413;
    return { status, body: errorBody('payload_too_large', 'payload_too_large', 'The chunk extensions of the request body are larger than the limit of 16 KB', requestId) };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const status = 408;
    return { status, body: errorBody('invalid_request', 'request_timeout', 'The request was not received in full in time; send it again', requestId) };
  }
  const status = 400;
  return { status, body: errorBody('invalid_request', 'malformed_request', `The request is not valid HTTP/1.1 (${code ?? 'unparsable'})`, requestId) };
}

/** A complete HTTP/1.1 response that closes the connection: after a parser error the stream cannot be trusted. */
export function rawResponse({ status, body }: Answer): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    `Request-Id: ${body.error.request_id}`,
    'Connection: close',
    '',
    json,
  ].join('\r\n');
}

/** Answers the requests Node's parser refuses (`clientError`) in the error shape. */
export function answerClientErrors(server: Server, logger?: Pick<Logger, 'info'>): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    // As Node's own handler: nothing to say to a peer that is gone, and nothing to write into an answer already
    // under way on this connection (a pipelined request after one being answered), which it would corrupt.
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = answerToClientError(err.code, newRequestId());
    logger?.info({ code: err.code, status: answer.status, request_id: answer.body.error.request_id }, 'request refused by the HTTP parser');
    // end(), not destroy(): closing with the rest of an oversized request unread would reset the connection
    // and lose the answer. The timer only reaps a peer that never closes its side.
    socket.end(rawResponse(answer));
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}
