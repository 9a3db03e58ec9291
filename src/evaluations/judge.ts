import type { ProviderRegistry } from '../llm/provider-registry';
import { isRecord } from '../shared/is-record';
import type { Judge } from './assertions';

const INSTRUCTIONS =
  'You grade a text against a criterion. Answer with one JSON object only: ' +
  '{"score": <number from 0 to 1>, "reason": "<one sentence>"}.';

/** A Judge that asks the named provider and model; an answer without a score from 0 to 1 is an error. */
export const judgeWith =
  (providers: ProviderRegistry): Judge =>
  async (assertion, text) => {
    const provider = providers.getProvider(assertion.provider);
    const model = providers.resolveModel(assertion.provider, assertion.model);
    const answer = await provider.chat({
      model,
      temperature: 0,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: `Criterion: ${assertion.prompt}\n\nText:\n${text}` },
      ],
    });
    const json = /\{[\s\S]*\}/.exec(answer.content)?.[0];
    let grade: unknown;
    try {
      grade = json === undefined ? undefined : JSON.parse(json);
    } catch {
      grade = undefined;
    }
    const score = isRecord(grade) ? grade.score : undefined;
    if (typeof score !== 'number' || score < 0 || score > 1) {
      throw new Error(`the judge answered no score from 0 to 1: ${answer.content.slice(0, 200)}`);
    }
    return { score, reason: isRecord(grade) && typeof grade.reason === 'string' ? grade.reason : '' };
  };
