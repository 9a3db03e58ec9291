import { readAnswerBody } from './answer-body';

const encoder = new TextEncoder();

/** A streamed body of these parts; `cancelled` tells whether the reader gave the rest up. */
const streamed = (parts: string[], contentType = 'text/event-stream') => {
  const state = { cancelled: false, pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled < parts.length) controller.enqueue(encoder.encode(parts[state.pulled++]));
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { response: new Response(body, { headers: { 'content-type': contentType } }), state };
};

describe(readAnswerBody.name, () => {
  it('should give every event, the ones in the bytes read to decide included', async () => {
    const { response } = streamed(['da', 'ta: {"n":1}\n\ndata: {"n"', ':2}\n\n', 'data: [DONE]\n\n']);

    const answer = await readAnswerBody(response);
    const data: string[] = [];
    if (answer.kind === 'events') for await (const event of answer.events) data.push(event.data);

    expect(answer.kind).toBe('events');
    expect(data).toEqual(['{"n":1}', '{"n":2}', '[DONE]']);
  });

  it('should give the body up when the reader stops early', async () => {
    const { response, state } = streamed(['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: {"n":3}\n\n']);

    const answer = await readAnswerBody(response);
    if (answer.kind === 'events') {
      for await (const event of answer.events) if (event.data === '{"n":1}') break;
    }

    expect(state.cancelled).toBe(true);
  });

  it('should take one whole chat completion from a server that ignored stream: true', async () => {
    const { response } = streamed(['{"choices":[{"message"', ':{"content":"hi"}}]}'], 'application/json');

    await expect(readAnswerBody(response)).resolves.toEqual({
      kind: 'completion',
      completion: { choices: [{ message: { content: 'hi' } }] },
    });
  });

  it('should name the content type and the first bytes of an answer that is neither', async () => {
    const { response } = streamed(['<html>oops</html>'], 'text/html');

    await expect(readAnswerBody(response)).rejects.toThrow('content-type "text/html" and a body starting with "<html>');
  });
});
