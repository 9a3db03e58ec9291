/** The workflow the API docs show (a smaller sibling of examples/weather.json); its spec keeps it valid. */
export const WEATHER_EXAMPLE: Record<string, unknown> = {
  name: 'weather',
  description: 'Answers weather questions with live data fetched by the model through http_request',
  inputs: {
    type: 'object',
    properties: { question: { type: 'string', description: 'A weather question, e.g. "Weather in Berlin?"' } },
    required: ['question'],
  },
  nodes: [
    { id: 'start', type: 'start', data: {} },
    {
      id: 'llm-1',
      type: 'llm',
      data: {
        system: 'Fetch current conditions with http_request: GET https://wttr.in/<city>?format=j1. Answer briefly.',
        prompt: '{{inputs.question}}',
        tools: ['http_request'],
        max_iterations: 5,
      },
    },
    { id: 'end', type: 'end', data: { outputs: { answer: '{{llm-1.output}}' } } },
  ],
  edges: [
    { source: 'start', target: 'llm-1' },
    { source: 'llm-1', target: 'end' },
  ],
};
