import type { ChatMessage } from '../shared/chat-types';

/** A final answer's verdict: it stands, or it goes back to the model with `feedback`. */
export type AnswerVerdict = { ok: true } | { ok: false; problems: string[]; feedback: string };

/**
 * What a final answer must satisfy (e.g. a node's output schema). An answer that fails goes back to the model
 * with the verdict's feedback as a user message, at most `retries` times; after that it stands as it is and the
 * caller decides what a failing answer means.
 */
export interface AnswerCheck {
  retries: number;
  check(answer: string): AnswerVerdict;
}

/** One answer sent back: `attempt` numbers the retries from 1. */
export interface AnswerRetry {
  attempt: number;
  problems: string[];
}

/** Counts the retries of one loop (a resumed loop goes on counting from its checkpoint). */
export class AnswerRetries {
  constructor(
    private readonly answerCheck: AnswerCheck | undefined,
    private used = 0,
  ) {}

  get count(): number {
    return this.used;
  }

  /** The message that sends `answer` back and the retry it is, or null when the answer stands (or no retry is left). */
  next(answer: string): { message: ChatMessage; retry: AnswerRetry } | null {
    if (this.answerCheck === undefined || this.used >= this.answerCheck.retries) return null;
    const verdict = this.answerCheck.check(answer);
    if (verdict.ok) return null;
    this.used += 1;
    return {
      message: { role: 'user', content: verdict.feedback },
      retry: { attempt: this.used, problems: verdict.problems },
    };
  }
}
