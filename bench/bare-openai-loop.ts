import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/**
 * The baseline the benchmarks measure against: the bare `openai` SDK streaming loop a developer would write by
 * hand. It assembles the calls of each answer, runs them all at once through `execute` (arguments parsed) and
 * sends the results back, until the model answers with text.
 */
export async function bareOpenAILoop(
  client: OpenAI,
  model: string,
  tools: ChatCompletionTool[],
  execute: (args: Record<string, unknown>) => Promise<string>,
): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Go.' }];
  for (;;) {
    const stream = await client.chat.completions.create({
      model,
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      content += delta?.content ?? '';
      for (const part of delta?.tool_calls ?? []) {
        const call = calls.get(part.index) ?? { id: '', name: '', arguments: '' };
        call.id ||= part.id ?? '';
        call.name ||= part.function?.name ?? '';
        call.arguments += part.function?.arguments ?? '';
        calls.set(part.index, call);
      }
    }
    if (calls.size === 0) return content;
    const list = [...calls.values()];
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: list.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    });
    const results = await Promise.all(
      list.map((call) => execute(JSON.parse(call.arguments) as Record<string, unknown>)),
    );
    results.forEach((result, index) => messages.push({ role: 'tool', tool_call_id: list[index].id, content: result }));
  }
}
