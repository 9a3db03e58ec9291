/** Cuts text to at most `maxChars` characters, saying how much was left out. */
export const truncateText = (text: string, maxChars: number): string => {
  if (text.length <= maxChars) return text;
  const omitted = text.length - maxChars;
  return `${text.slice(0, maxChars)}… [${omitted} more characters]`;
};
