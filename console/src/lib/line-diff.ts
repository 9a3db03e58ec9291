export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** Past this many cells the middle part is shown as removed then added, instead of an exact line match. */
const MAX_CELLS = 4_000_000;

/**
 * A line diff of two texts (longest common subsequence): the lines only in `before` are `removed`, the lines
 * only in `after` are `added`, in reading order.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head = a.slice(0, start).map((text): DiffLine => ({ kind: 'same', text }));
  const tail = a.slice(endA).map((text): DiffLine => ({ kind: 'same', text }));
  const middleA = a.slice(start, endA);
  const middleB = b.slice(start, endB);
  return [...head, ...diffMiddle(middleA, middleB), ...tail];
}

function diffMiddle(a: string[], b: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ kind: 'removed', text });
  const added = (text: string): DiffLine => ({ kind: 'added', text });
  if (a.length === 0 || b.length === 0 || (a.length + 1) * (b.length + 1) > MAX_CELLS) {
    return [...a.map(removed), ...b.map(added)];
  }
  const width = b.length + 1;
  // lengths[i * width + j]: the longest common subsequence of a[i..] and b[j..].
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j]
          ? lengths[(i + 1) * width + j + 1] + 1
          : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i] });
      i++;
      j++;
    } else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) {
      lines.push(removed(a[i++]));
    } else {
      lines.push(added(b[j++]));
    }
  }
  return [...lines, ...a.slice(i).map(removed), ...b.slice(j).map(added)];
}

/** A diff line as shown: a line of the diff, or a run of unchanged lines folded into one. */
export type ShownLine = DiffLine | { kind: 'fold'; text: string };

/** Keeps `context` unchanged lines around each change and folds every longer unchanged run into one line. */
export function foldUnchanged(lines: DiffLine[], context: number): ShownLine[] {
  const near = lines.map((_, index) =>
    lines.slice(Math.max(0, index - context), index + context + 1).some((line) => line.kind !== 'same'),
  );
  const shown: ShownLine[] = [];
  let folded = 0;
  lines.forEach((line, index) => {
    if (line.kind === 'same' && !near[index]) {
      folded++;
      return;
    }
    if (folded) shown.push({ kind: 'fold', text: `… ${folded} unchanged lines` });
    folded = 0;
    shown.push(line);
  });
  if (folded) shown.push({ kind: 'fold', text: `… ${folded} unchanged lines` });
  return shown;
}
