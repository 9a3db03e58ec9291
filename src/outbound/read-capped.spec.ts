import { PassThrough, Readable } from 'node:stream';
import { readCapped, ResponseTooLargeError } from './read-capped';

describe(readCapped.name, () => {
  const open = () => new AbortController().signal;

  it('should read the whole body, buffers and strings alike', async () => {
    const body = Readable.from([Buffer.from('ab'), 'cd', Buffer.from('é')], { objectMode: false });

    await expect(readCapped(body, 100, open())).resolves.toEqual(Buffer.from('abcdé'));
  });

  it('should fail and destroy the stream once the body passes the limit', async () => {
    const body = new PassThrough();
    const reading = readCapped(body, 4, open());
    body.write('abc');
    body.write('def');

    await expect(reading).rejects.toBeInstanceOf(ResponseTooLargeError);
    await expect(reading).rejects.toMatchObject({ details: { metadata: { max_bytes: 4, bytes_read: 6 } } });
    expect(body.destroyed).toBe(true);
  });

  it('should fail when the stream closes before its end', async () => {
    const body = new PassThrough();
    const reading = readCapped(body, 100, open());
    body.write('partial');
    body.destroy();

    await expect(reading).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('should fail with the stream error', async () => {
    const body = new PassThrough();
    const reading = readCapped(body, 100, open());
    body.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

    await expect(reading).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('should stop reading when the signal fires, also when it fired before', async () => {
    const controller = new AbortController();
    const body = new PassThrough();
    const reading = readCapped(body, 100, controller.signal);
    body.write('some');
    controller.abort();
    const late = new PassThrough();

    await expect(reading).rejects.toThrow('aborted');
    expect(body.destroyed).toBe(true);
    await expect(readCapped(late, 100, controller.signal)).rejects.toThrow('aborted');
    expect(late.destroyed).toBe(true);
  });
});
