/** OpenAI reasoning models (o1, o3, o4-mini, gpt-5…): `max_completion_tokens`, encrypted reasoning. */
export const isOpenAIReasoningModel = (model: string): boolean => /^(?:o\d|gpt-5)/i.test(model);
