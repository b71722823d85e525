/**
 * SPDY/3.1 framing, header blocks and sessions: frames round-trip, malformed input is refused
 * with a bounded buffer, and two sessions over a real socket pair open streams, move data both
 * ways with FIN, answer pings and resets.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HeaderCompressor,
  HeaderDecompressor,
  SPDY_HEADER_DICTIONARY,
  SpdyConnection,
  decodeHeaderBlock,
  encodeHeaderBlock,
  spdyFrames,
  type SpdyStream,
} from '../../../src/nodeagent/index.js';

const { FrameParser, RstStatus, encodeData, encodeGoAway, encodePing, encodeRstStream, encodeSettings, encodeSynReply, encodeSynStream, encodeWindowUpdate } = spdyFrames;

describe('the SPDY/3 header dictionary', () => {
  it('is the 1423 bytes of the SPDY/3 draft, byte for byte', () => {
    expect(SPDY_HEADER_DICTIONARY.length).toBe(1423);
    expect(SPDY_HEADER_DICTIONARY.subarray(0, 11)).toEqual(Buffer.from('\0\0\0\x07options', 'latin1'));
    expect(SPDY_HEADER_DICTIONARY.includes(Buffer.from('\0\0\0\x06origin100101', 'latin1'))).toBe(true);
    expect(SPDY_HEADER_DICTIONARY.subarray(-7).toString('latin1')).toBe(',enq=0.');
  });
});

describe('frames', () => {
  it('round-trips every frame type through the parser', () => {
    const parser = new FrameParser();
    const bytes = Buffer.concat([
      encodeData(3, Buffer.from('hello'), true),
      encodeSynStream(5, Buffer.from([1, 2, 3]), { fin: true, unidirectional: true, associatedId: 1, priority: 7 }),
      encodeSynReply(5, Buffer.from([4]), true),
      encodeRstStream(5, RstStatus.CANCEL),
      encodeSettings([{ id: 7, value: 1 << 20 }], true),
      encodePing(9),
      encodeGoAway(7, 2),
      encodeWindowUpdate(3, 4096),
    ]);
    expect(parser.push(bytes)).toEqual([
      { type: 'data', streamId: 3, fin: true, data: Buffer.from('hello') },
      { type: 'syn_stream', streamId: 5, associatedId: 1, priority: 7, fin: true, unidirectional: true, headerBlock: Buffer.from([1, 2, 3]) },
      { type: 'syn_reply', streamId: 5, fin: true, headerBlock: Buffer.from([4]) },
      { type: 'rst_stream', streamId: 5, status: RstStatus.CANCEL },
      { type: 'settings', clear: true, entries: [{ id: 7, flags: 0, value: 1 << 20 }] },
      { type: 'ping', id: 9 },
      { type: 'goaway', lastGoodStreamId: 7, status: 2 },
      { type: 'window_update', streamId: 3, delta: 4096 },
    ]);
    expect(parser.buffered).toBe(0);
  });

  it('reassembles a frame split across chunks, one byte at a time', () => {
    const parser = new FrameParser();
    const bytes = encodeData(1, Buffer.from('split me'), false);
    const frames = [];
    for (const byte of bytes) frames.push(...parser.push(Buffer.from([byte])));
    expect(frames).toEqual([{ type: 'data', streamId: 1, fin: false, data: Buffer.from('split me') }]);
  });

  it('refuses a frame declaring more than the limit before buffering it', () => {
    const parser = new FrameParser({ maxFrameBytes: 1024 });
    const header = encodeData(1, Buffer.alloc(2048), false).subarray(0, 8);
    expect(() => parser.push(header)).toThrow(/over the 1024-byte limit/);
  });

  it('refuses another SPDY version and truncated control frames', () => {
    const v2 = encodePing(1);
    v2.writeUInt16BE(0x8002, 0);
    expect(() => new FrameParser().push(v2)).toThrow(/unsupported version 2/);
    const short = Buffer.from([0x80, 3, 0, 3, 0, 0, 0, 2, 0, 0]);
    expect(() => new FrameParser().push(short)).toThrow(/needs 8/);
  });

  it('skips control frame types it does not know', () => {
    const unknown = Buffer.from([0x80, 3, 0, 0x42, 0, 0, 0, 0]);
    expect(new FrameParser().push(unknown)).toEqual([{ type: 'unknown', frameType: 0x42 }]);
  });
});

describe('header blocks', () => {
  it('encodes lower-case names and NUL-joined values, and decodes them back', () => {
    const block = encodeHeaderBlock({ StreamType: 'data', port: '8080', multi: ['a', 'b'] });
    expect([...decodeHeaderBlock(block)]).toEqual([
      ['streamtype', ['data']],
      ['port', ['8080']],
      ['multi', ['a', 'b']],
    ]);
  });

  it('compresses successive blocks with one shared zlib context that inflates in order', async () => {
    const compressor = new HeaderCompressor();
    const decompressor = new HeaderDecompressor();
    const first = await compressor.compress({ streamtype: 'error', port: '80', requestid: '0' });
    const second = await compressor.compress({ streamtype: 'data', port: '80', requestid: '0' });
    // The second block refers back to the first: it is smaller than the first.
    expect(second.length).toBeLessThan(first.length);
    expect(Object.fromEntries(await decompressor.decompress(first))).toEqual({ streamtype: ['error'], port: ['80'], requestid: ['0'] });
    expect(Object.fromEntries(await decompressor.decompress(second))).toEqual({ streamtype: ['data'], port: ['80'], requestid: ['0'] });
    compressor.close();
    decompressor.close();
  });

  it('rejects a block that is not zlib data', async () => {
    const decompressor = new HeaderDecompressor();
    await expect(decompressor.decompress(Buffer.from('not zlib at all'))).rejects.toThrow(/SPDY header block/);
    decompressor.close();
  });
});

describe('sessions over a socket pair', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  async function pair(): Promise<{ server: SpdyConnection; client: SpdyConnection; serverSocket: Socket; clientSocket: Socket }> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const clientSocket = connect(port, '127.0.0.1');
    const serverSocket = await accepted;
    cleanups.push(() => {
      clientSocket.destroy();
      serverSocket.destroy();
      server.close();
    });
    return { server: new SpdyConnection(serverSocket, { role: 'server' }), client: new SpdyConnection(clientSocket, { role: 'client' }), serverSocket, clientSocket };
  }

  const read = (stream: SpdyStream): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => resolve(Buffer.concat(chunks).toString()));
      stream.on('error', reject);
    });

  it('opens a stream with headers, replies, and moves data both ways with FIN', async () => {
    const { server, client } = await pair();
    const accepted = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    const outgoing = client.openStream({ streamType: 'data', port: '80', requestID: '1' });
    const incoming = await accepted;
    expect(incoming.id).toBe(1);
    expect(incoming.header('streamType')).toBe('data');
    expect(incoming.header('requestid')).toBe('1');
    incoming.reply();
    const big = Buffer.alloc(200_000, 'x').toString();
    const serverGot = read(incoming);
    const clientGot = read(outgoing);
    outgoing.end(big);
    incoming.end('pong');
    expect(await serverGot).toBe(big);
    expect(await clientGot).toBe('pong');
    expect(client.openStreams).toBe(0);
  });

  it('a reader that falls behind pauses the transport; reading again resumes it and nothing is lost', async () => {
    const { server, client, serverSocket } = await pair();
    const accepted = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    const outgoing = client.openStream({ streamtype: 'data' });
    const incoming = await accepted;
    incoming.reply();
    incoming.pause();
    const payload = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = i % 251;
    outgoing.end(payload);
    await expect.poll(() => serverSocket.isPaused()).toBe(true);
    // What the session holds for the slow reader stays near the stream's buffer, not the 4 MiB sent.
    expect(incoming.readableLength).toBeLessThan(1024 * 1024);
    const chunks: Buffer[] = [];
    incoming.on('data', (c: Buffer) => chunks.push(c));
    incoming.resume();
    await new Promise((resolve) => incoming.on('end', resolve));
    expect(Buffer.concat(chunks).equals(payload)).toBe(true);
  });

  it('a reset stream ends on the other side with the status', async () => {
    const { server, client } = await pair();
    const accepted = new Promise<SpdyStream>((resolve) => server.once('stream', resolve));
    const outgoing = client.openStream({ streamtype: 'error' });
    const incoming = await accepted;
    const closed = new Promise<void>((resolve) => incoming.once('close', () => resolve()));
    outgoing.reset(RstStatus.CANCEL);
    await closed;
    expect(incoming.resetStatus).toBe(RstStatus.CANCEL);
    expect(server.openStreams).toBe(0);
  });

  it('answers a ping with the same id, and a GOAWAY ends the session', async () => {
    const { server, serverSocket, clientSocket } = await pair();
    const parser = new FrameParser();
    const frames: unknown[] = [];
    clientSocket.on('data', (chunk: Buffer) => frames.push(...parser.push(chunk)));
    clientSocket.write(encodePing(7));
    await expect.poll(() => frames).toEqual([{ type: 'ping', id: 7 }]);
    const goaway = new Promise<number>((resolve) => server.once('goaway', resolve));
    clientSocket.write(encodeGoAway(0, 0));
    expect(await goaway).toBe(0);
    const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
    clientSocket.end();
    await closed;
    expect(serverSocket.destroyed || serverSocket.readableEnded).toBe(true);
  });

  it('DATA for a stream never opened is answered with RST_STREAM INVALID_STREAM', async () => {
    const { clientSocket } = await pair();
    const parser = new FrameParser();
    const frames: unknown[] = [];
    clientSocket.on('data', (chunk: Buffer) => frames.push(...parser.push(chunk)));
    clientSocket.write(encodeData(41, Buffer.from('stray'), false));
    await expect.poll(() => frames).toEqual([{ type: 'rst_stream', streamId: 41, status: RstStatus.INVALID_STREAM }]);
  });

  it('a SYN_STREAM with the server own parity is refused as a protocol error', async () => {
    const { clientSocket } = await pair();
    const parser = new FrameParser();
    const frames: unknown[] = [];
    clientSocket.on('data', (chunk: Buffer) => frames.push(...parser.push(chunk)));
    const block = await new HeaderCompressor().compress({ a: 'b' });
    clientSocket.write(encodeSynStream(2, block));
    await expect.poll(() => frames).toEqual([{ type: 'rst_stream', streamId: 2, status: RstStatus.PROTOCOL_ERROR }]);
  });

  it('a malformed frame ends the session with GOAWAY PROTOCOL_ERROR', async () => {
    const { server, clientSocket } = await pair();
    const parser = new FrameParser();
    const frames: unknown[] = [];
    clientSocket.on('data', (chunk: Buffer) => frames.push(...parser.push(chunk)));
    const closed = new Promise<Error | undefined>((resolve) => server.once('close', resolve));
    const bad = encodePing(1);
    bad.writeUInt16BE(0x8002, 0);
    clientSocket.write(bad);
    expect(await closed).toBeInstanceOf(Error);
    await expect.poll(() => frames).toEqual([{ type: 'goaway', lastGoodStreamId: 0, status: 1 }]);
  });
});
