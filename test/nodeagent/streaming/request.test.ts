/**
 * The pure parts of the streaming endpoints: how a request's path and query are read, how
 * subprotocols are chosen, the channel message codecs, and the connection limits.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_STREAMING_CONNECTION_MS,
  connectionLimits,
  decodeChannelMessage,
  encodeChannelMessageBase64,
  encodeChannelMessage,
  exitCodeOf,
  exitCodeStatus,
  failureStatus,
  isStreamingPath,
  negotiateExecProtocol,
  negotiatePortForwardProtocol,
  parseStreamRequest,
  parseTerminalSize,
} from '../../../src/nodeagent/index.js';
import { StatusError } from '../../../src/api/index.js';

describe('parseStreamRequest', () => {
  it('reads exec with the API server query names', () => {
    expect(parseStreamRequest('POST', '/exec/ns/pod/c?command=sh&command=-c&command=echo%20hi&stdin=1&stdout=true&stderr=1')).toEqual({
      kind: 'exec',
      pod: { namespace: 'ns', name: 'pod', uid: undefined },
      container: 'c',
      command: ['sh', '-c', 'echo hi'],
      stdin: true,
      stdout: true,
      stderr: true,
      tty: false,
    });
  });

  it('reads the kubelet query names input/output/error and a UID in the path', () => {
    expect(parseStreamRequest('GET', '/attach/ns/pod/uid-1/c?input=1&output=1&error=1')).toMatchObject({ kind: 'attach', pod: { uid: 'uid-1' }, stdin: true, stdout: true, stderr: true });
  });

  it('reads the stream options as strconv.ParseBool does; another spelling is a 400', () => {
    expect(parseStreamRequest('GET', '/attach/ns/pod/c?stdin=True&stdout=T&stderr=FALSE&tty=f')).toMatchObject({ stdin: true, stdout: true, stderr: false, tty: false });
    expect(() => parseStreamRequest('GET', '/attach/ns/pod/c?stdin=yes&stdout=true')).toThrow(expect.objectContaining({ reason: 'BadRequest', code: 400 }));
  });

  it('a tty turns stderr off: the terminal merges it into stdout', () => {
    expect(parseStreamRequest('GET', '/exec/ns/pod/c?command=sh&stdout=1&stderr=1&tty=1')).toMatchObject({ tty: true, stderr: false, stdout: true });
  });

  it('reads port-forward ports repeated and comma separated, under port and ports', () => {
    expect(parseStreamRequest('GET', '/portForward/ns/pod?port=80,443&ports=8080')).toEqual({ kind: 'portForward', pod: { namespace: 'ns', name: 'pod', uid: undefined }, ports: [80, 443, 8080] });
    expect(parseStreamRequest('GET', '/portForward/ns/pod/uid-2')).toMatchObject({ pod: { uid: 'uid-2' }, ports: [] });
  });

  it.each([
    ['PUT', '/exec/ns/pod/c?command=x&stdout=1', 'MethodNotAllowed'],
    ['GET', '/exec/ns/pod/c?stdout=1', 'BadRequest'],
    ['GET', '/exec/ns/pod/c?command=x', 'BadRequest'],
    ['GET', '/exec/ns/pod/c?command=x&stdout=0&stderr=false', 'BadRequest'],
    ['GET', '/exec/ns', 'BadRequest'],
    ['GET', '/exec/ns/pod', 'BadRequest'],
    ['GET', '/exec/ns/pod/a/b/c?command=x&stdout=1', 'BadRequest'],
    ['GET', '/portForward/ns/pod?port=0', 'BadRequest'],
    ['GET', '/portForward/ns/pod?port=65536', 'BadRequest'],
    ['GET', '/portForward/ns/pod?port=http', 'BadRequest'],
    ['GET', '/portForward/ns/pod?port=', 'BadRequest'],
    ['GET', '/portForward/ns/pod/uid/extra', 'BadRequest'],
    ['GET', '/logs/ns/pod', 'NotFound'],
  ])('%s %s is a %s StatusError', (method, url, reason) => {
    expect(() => parseStreamRequest(method, url)).toThrow(StatusError);
    try {
      parseStreamRequest(method, url);
    } catch (error) {
      expect((error as StatusError).reason).toBe(reason);
    }
  });

  it('isStreamingPath matches exactly the three endpoints', () => {
    expect(['/exec/a/b/c?x', '/attach/a/b/c', '/portForward/a/b'].every(isStreamingPath)).toBe(true);
    expect(['/pods', '/containerLogs/a/b/c', '/execute', '/portforward/a/b'].some(isStreamingPath)).toBe(false);
  });
});

describe('subprotocol negotiation', () => {
  it('exec prefers v5, then v4, then the base64 and legacy forms; none offered is legacy channel.k8s.io', () => {
    expect(negotiateExecProtocol(['v4.channel.k8s.io', 'v5.channel.k8s.io'])).toBe('v5.channel.k8s.io');
    expect(negotiateExecProtocol(['v4.channel.k8s.io'])).toBe('v4.channel.k8s.io');
    expect(negotiateExecProtocol(['v4.base64.channel.k8s.io'])).toBe('v4.base64.channel.k8s.io');
    expect(negotiateExecProtocol([])).toBe('channel.k8s.io');
    expect(negotiateExecProtocol(['v3.channel.k8s.io'])).toBeUndefined();
  });

  it('port-forward prefers the SPDY tunnel, else v4 channels; never v5', () => {
    expect(negotiatePortForwardProtocol(['SPDY/3.1+portforward.k8s.io', 'v4.channel.k8s.io'])).toBe('SPDY/3.1+portforward.k8s.io');
    expect(negotiatePortForwardProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io'])).toBe('v4.channel.k8s.io');
    expect(negotiatePortForwardProtocol(['v5.channel.k8s.io'])).toBeUndefined();
  });
});

describe('channel messages', () => {
  it('binary: one channel byte, then the payload', () => {
    const bytes = encodeChannelMessage(2, Buffer.from('err'));
    expect([...bytes]).toEqual([2, 101, 114, 114]);
    expect(decodeChannelMessage(bytes, false)).toEqual({ channel: 2, payload: Buffer.from('err') });
  });

  it('base64: the channel digit, then base64 text', () => {
    const message = encodeChannelMessageBase64(1, Buffer.from('out'));
    expect(message).toBe('1b3V0');
    expect(decodeChannelMessage(message, true)).toEqual({ channel: 1, payload: Buffer.from('out') });
  });

  it('empty and malformed messages decode to nothing', () => {
    expect(decodeChannelMessage(Buffer.alloc(0), false)).toBeUndefined();
    expect(decodeChannelMessage('', true)).toBeUndefined();
    expect(decodeChannelMessage('x abc', true)).toBeUndefined();
    expect(decodeChannelMessage('text on a binary protocol', false)).toBeUndefined();
  });

  it('a resize body must carry integer Width and Height', () => {
    expect(parseTerminalSize(Buffer.from('{"Width":80,"Height":24}'))).toEqual({ Width: 80, Height: 24 });
    for (const bad of ['{"Width":80}', '{"Width":-1,"Height":2}', '{"Width":1.5,"Height":2}', 'nope', '{"Width":70000,"Height":1}']) {
      expect(parseTerminalSize(Buffer.from(bad))).toBeUndefined();
    }
  });
});

describe('exit Status', () => {
  it('0 is Success; anything else is NonZeroExitCode with an ExitCode cause', () => {
    expect(exitCodeStatus(0)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
    expect(exitCodeStatus(137)).toMatchObject({ status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '137' }] } });
    expect(exitCodeOf(exitCodeStatus(137))).toBe(137);
    expect(exitCodeOf(exitCodeStatus(0))).toBe(0);
  });

  it('a failure keeps a StatusError reason and code', () => {
    expect(failureStatus(new StatusError({ reason: 'NotFound', message: 'gone' }))).toMatchObject({ status: 'Failure', reason: 'NotFound', code: 404, message: 'gone' });
    expect(failureStatus(new Error('boom'))).toMatchObject({ reason: 'InternalError', code: 500 });
    expect(exitCodeOf(failureStatus(new Error('boom')))).toBeUndefined();
  });
});

describe('connection limits (on a paused clock)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('expires an idle connection; traffic postpones it', () => {
    const expired: string[] = [];
    const limits = connectionLimits({ idleTimeoutMs: 150, maxDurationMs: 0, onExpire: (why) => expired.push(why) });
    for (let i = 0; i < 4; i++) {
      vi.advanceTimersByTime(100);
      limits.touch();
    }
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(149);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['idle']);
  });

  it('expires at the maximum duration however busy, once', () => {
    const expired: string[] = [];
    const limits = connectionLimits({ idleTimeoutMs: 50, maxDurationMs: 1000, onExpire: (why) => expired.push(why) });
    for (let t = 0; t < 2000; t += 10) {
      vi.advanceTimersByTime(10);
      limits.touch();
    }
    expect(expired).toEqual(['maxDuration']);
  });

  it('0 means no limit, and stop() cancels', () => {
    const expired: string[] = [];
    connectionLimits({ idleTimeoutMs: 0, maxDurationMs: 0, onExpire: (why) => expired.push(why) });
    const stopped = connectionLimits({ idleTimeoutMs: 20, maxDurationMs: 20, onExpire: (why) => expired.push(why) });
    stopped.stop();
    vi.advanceTimersByTime(10 * 60 * 60 * 1000);
    expect(expired).toEqual([]);
  });

  it('the default ceiling is 4 hours', () => {
    expect(MAX_STREAMING_CONNECTION_MS).toBe(4 * 60 * 60 * 1000);
  });
});
