/** An amount of money in the currency's main unit (dollars, not cents). */
export interface Cost {
  amount: number;
  currency: string;
}

/** `0.0022 USD`; an unknown cost says so rather than showing 0. */
export function costText(cost: Cost | null | undefined): string {
  if (cost === undefined) return '';
  if (cost === null) return 'cost unknown';
  return `${Number(cost.amount.toPrecision(6))} ${cost.currency}`;
}
