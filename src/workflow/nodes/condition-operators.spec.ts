import { CONDITION_OPERATORS, type Condition, evaluateCondition } from './condition-operators';

const holds = (left: unknown, op: Condition['op'], right?: unknown) => evaluateCondition({ left, op, right });

describe(evaluateCondition.name, () => {
  it('should offer the eleven operators of the condition node', () => {
    expect(CONDITION_OPERATORS).toEqual([
      'equals',
      'not_equals',
      'contains',
      'not_contains',
      'starts_with',
      'ends_with',
      'greater_than',
      'less_than',
      'is_empty',
      'is_not_empty',
      'matches',
    ]);
  });

  describe('equals', () => {
    it('should compare values as text', () => {
      expect(holds('42', 'equals', 42)).toBe(true);
      expect(holds({ a: 1 }, 'equals', '{"a":1}')).toBe(true);
      expect(holds(null, 'equals', '')).toBe(true);
      expect(holds('a', 'equals', 'A')).toBe(false);
    });
  });

  describe('not_equals', () => {
    it('should hold exactly when equals does not', () => {
      expect(holds('a', 'not_equals', 'b')).toBe(true);
      expect(holds(7, 'not_equals', '7')).toBe(false);
    });
  });

  describe('contains', () => {
    it('should find a substring in text', () => {
      expect(holds('sunny and warm', 'contains', 'warm')).toBe(true);
      expect(holds('sunny', 'contains', 'rain')).toBe(false);
    });

    it('should find an equal item in an array, not a part of one', () => {
      expect(holds(['a', 2, 'c'], 'contains', '2')).toBe(true);
      expect(holds(['abc'], 'contains', 'b')).toBe(false);
    });
  });

  describe('not_contains', () => {
    it('should hold exactly when contains does not', () => {
      expect(holds('sunny', 'not_contains', 'rain')).toBe(true);
      expect(holds(['x', 'y'], 'not_contains', 'y')).toBe(false);
    });
  });

  describe('starts_with', () => {
    it('should test the beginning of the text', () => {
      expect(holds('ToolFlow', 'starts_with', 'Tool')).toBe(true);
      expect(holds('ToolFlow', 'starts_with', 'Flow')).toBe(false);
    });
  });

  describe('ends_with', () => {
    it('should test the end of the text', () => {
      expect(holds('report.pdf', 'ends_with', '.pdf')).toBe(true);
      expect(holds('report.pdf', 'ends_with', '.txt')).toBe(false);
    });
  });

  describe('greater_than', () => {
    it('should compare numbers, also written as text', () => {
      expect(holds('31.5', 'greater_than', 30)).toBe(true);
      expect(holds(9, 'greater_than', '10')).toBe(false);
      expect(holds(10, 'greater_than', 10)).toBe(false);
    });

    it('should be false when a side is not a number', () => {
      expect(holds('warm', 'greater_than', 10)).toBe(false);
    });
  });

  describe('less_than', () => {
    it('should compare numbers, also written as text', () => {
      expect(holds('9', 'less_than', 10)).toBe(true);
      expect(holds(10, 'less_than', 10)).toBe(false);
      expect(holds('cold', 'less_than', 10)).toBe(false);
    });
  });

  describe('is_empty', () => {
    it.each([[undefined], [null], [''], [[]], [{}]])('should hold for %p', (value) => {
      expect(holds(value, 'is_empty')).toBe(true);
    });

    it.each([[0], [false], [' '], [[0]], [{ a: null }]])('should not hold for %p', (value) => {
      expect(holds(value, 'is_empty')).toBe(false);
    });
  });

  describe('is_not_empty', () => {
    it('should hold exactly when is_empty does not', () => {
      expect(holds('x', 'is_not_empty')).toBe(true);
      expect(holds(0, 'is_not_empty')).toBe(true);
      expect(holds([], 'is_not_empty')).toBe(false);
    });
  });

  describe('matches', () => {
    it('should find the pattern anywhere in the text', () => {
      expect(holds('order #1234 shipped', 'matches', '#\\d{4}')).toBe(true);
      expect(holds('order shipped', 'matches', '^\\d+$')).toBe(false);
    });

    it('should refuse backreferences, which linear-time RE2 does not support', () => {
      expect(() => holds('aa', 'matches', '(a)\\1')).toThrow();
    });
  });

  it('should refuse an operator it does not know', () => {
    expect(() => holds('a', 'toString' as Condition['op'], 'a')).toThrow('unknown condition operator toString');
  });
});
