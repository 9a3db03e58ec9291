import { addCosts, type Cost, costDifference } from '../llm/model-prices';
import type { Divergence } from '../workflow/recording/divergence';
import type { AssertionResult } from './assertions';

/** One case of a test run: pass/fail per assertion, and the run to open. */
export interface CaseResult {
  name: string;
  passed: boolean;
  /** The run the case executed (open it with GET /runs/{id}); null when it could not start. */
  run_id: string | null;
  run_status: string | null;
  /** The case ran from its cassette (no model contacted). */
  replayed: boolean;
  /** A replayed case: where it first left its cassette; null when it did not. */
  divergence: Divergence | null;
  /** Why the case could not run (its inputs refused …); null when it ran. */
  error: string | null;
  assertions: AssertionResult[];
  total_tokens: number;
  duration_ms: number | null;
  /**
   * What its run's model calls cost (GET /runs/{id} `cost`); null when a model has no known price, it did not run
   * or its replay diverged (the calls it did not make have no cost to add).
   */
  cost: Cost | null;
}

export interface TestRunSummary {
  cases: number;
  passed: number;
  failed: number;
  total_tokens: number;
  duration_ms: number;
  /** The cost of the cases that ran, added up; null when any of them has no known cost. */
  cost: Cost | null;
}

/** How one case did against the previous test run of the suite. */
export interface CaseComparison {
  name: string;
  passed: boolean;
  /** Null: the case is new since then. */
  previous_passed: boolean | null;
  tokens_delta: number | null;
  duration_ms_delta: number | null;
  /** Null when the case is new or either cost is unknown. */
  cost_delta: Cost | null;
}

/** A test run against the previous one of the same suite. */
export interface TestRunComparison {
  previous_test_run_id: string;
  newly_failing: string[];
  newly_passing: string[];
  total_tokens_delta: number;
  duration_ms_delta: number;
  /** Null when either test run's cost is unknown. */
  cost_delta: Cost | null;
  cases: CaseComparison[];
}

/** A case stored before cases had a cost reads as one of unknown cost. */
const costOfCase = (result: CaseResult): Cost | null => result.cost ?? null;

export function summarize(results: readonly CaseResult[]): TestRunSummary {
  const passed = results.filter((result) => result.passed).length;
  return {
    cases: results.length,
    passed,
    failed: results.length - passed,
    total_tokens: results.reduce((sum, result) => sum + result.total_tokens, 0),
    duration_ms: results.reduce((sum, result) => sum + (result.duration_ms ?? 0), 0),
    // A case that did not run cost nothing; one that ran with an unpriced model makes the total unknown.
    cost: addCosts(results.filter((result) => result.run_id !== null).map(costOfCase)),
  };
}

/** Compares the results with the previous test run's, case by case (by name). */
export function compareResults(
  results: readonly CaseResult[],
  previous: { id: string; results: readonly CaseResult[] },
): TestRunComparison {
  const before = new Map(previous.results.map((result) => [result.name, result]));
  const cases = results.map((result): CaseComparison => {
    const earlier = before.get(result.name);
    return {
      name: result.name,
      passed: result.passed,
      previous_passed: earlier?.passed ?? null,
      tokens_delta: earlier ? result.total_tokens - earlier.total_tokens : null,
      duration_ms_delta:
        earlier && earlier.duration_ms !== null && result.duration_ms !== null
          ? result.duration_ms - earlier.duration_ms
          : null,
      cost_delta: earlier ? costDifference(costOfCase(result), costOfCase(earlier)) : null,
    };
  });
  const now = summarize(results);
  const then = summarize(previous.results);
  return {
    previous_test_run_id: previous.id,
    newly_failing: cases.filter((entry) => !entry.passed && entry.previous_passed === true).map((entry) => entry.name),
    newly_passing: cases.filter((entry) => entry.passed && entry.previous_passed === false).map((entry) => entry.name),
    total_tokens_delta: now.total_tokens - then.total_tokens,
    duration_ms_delta: now.duration_ms - then.duration_ms,
    cost_delta: costDifference(now.cost, then.cost),
    cases,
  };
}
