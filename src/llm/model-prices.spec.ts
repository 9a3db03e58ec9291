import { addCosts, costDifference, costOf, PriceTable } from './model-prices';

describe(PriceTable.name, () => {
  const sut = new PriceTable(
    {
      openai: { base_url: 'https://api.openai.com/v1' },
      proxy: { base_url: 'https://llm-proxy.internal/v1' },
      claude: { protocol: 'anthropic', base_url: 'https://api.anthropic.com' },
      own: {
        base_url: 'http://127.0.0.1:8000/v1',
        models: { mine: { price: { input: 1, output: 3, currency: 'EUR' } } },
      },
    },
    { 'proxy/gpt-4o': { input: 5, output: 15 }, 'gpt-4o': { input: 9, output: 9 } },
  );

  it("should price a vendor's model on the vendor's own host, snapshots by their family", () => {
    expect(sut.priceOf('openai', 'gpt-4o-mini')).toMatchObject({ source: 'list_price', price: { input: 0.15 } });
    expect(sut.priceOf('openai', 'gpt-4o-mini-2024-07-18')).toMatchObject({ price: { input: 0.15, output: 0.6 } });
    expect(sut.priceOf('claude', 'claude-sonnet-4-20250514')).toMatchObject({ price: { input: 3, output: 15 } });
  });

  it('should not take a vendor price for a model of the same name behind another host', () => {
    expect(sut.priceOf('own', 'gpt-4o-mini')).toBeNull();
    expect(sut.priceOf('openai', 'gpt-4o-minimal')).toBeNull();
  });

  it('should prefer the provider entry, then provider/model, then model in PRICES_FILE', () => {
    expect(sut.priceOf('own', 'mine')).toEqual({
      source: 'provider',
      price: { input: 1, output: 3, currency: 'EUR' },
    });
    expect(sut.priceOf('proxy', 'gpt-4o')).toMatchObject({ source: 'prices_file', price: { input: 5 } });
    expect(sut.priceOf('openai', 'gpt-4o')).toMatchObject({ source: 'prices_file', price: { input: 9 } });
  });

  it('should cost an unpriced model null, never 0', () => {
    expect(sut.costOf('own', 'unknown', { promptTokens: 10, completionTokens: 5, totalTokens: 15 })).toBeNull();
  });
});

describe(costOf.name, () => {
  const price = { input: 2, cached_input: 0.5, output: 8, reasoning: 10 };

  it('should price cached prompt tokens and reasoning tokens apart', () => {
    const usage = {
      promptTokens: 1_000_000,
      cachedPromptTokens: 400_000,
      completionTokens: 100_000,
      reasoningTokens: 50_000,
      totalTokens: 1_100_000,
    };
    // 600k x 2 + 400k x 0.5 + 50k x 8 + 50k x 10, per million
    expect(costOf(usage, price)).toEqual({ amount: 1.2 + 0.2 + 0.4 + 0.5, currency: 'USD' });
  });

  it('should bill reasoning at the output price and cached at the input price when the price says nothing', () => {
    const usage = {
      promptTokens: 1000,
      cachedPromptTokens: 1000,
      completionTokens: 1000,
      reasoningTokens: 1000,
      totalTokens: 2000,
    };
    expect(costOf(usage, { input: 1, output: 4 })).toEqual({ amount: 0.005, currency: 'USD' });
  });
});

describe(addCosts.name, () => {
  it('should add costs of one currency without float drift', () => {
    const tenth = { amount: 0.1, currency: 'USD' };
    expect(addCosts([tenth, tenth, tenth])).toEqual({ amount: 0.3, currency: 'USD' });
  });

  it('should make a total with an unknown or a foreign part unknown', () => {
    expect(addCosts([{ amount: 1, currency: 'USD' }, null])).toBeNull();
    expect(
      addCosts([
        { amount: 1, currency: 'USD' },
        { amount: 1, currency: 'EUR' },
      ]),
    ).toBeNull();
  });
});

describe(costDifference.name, () => {
  it('should subtract in one currency, and know nothing when either side is unknown or currencies differ', () => {
    expect(costDifference({ amount: 0.3, currency: 'USD' }, { amount: 0.1, currency: 'USD' })).toEqual({
      amount: 0.2,
      currency: 'USD',
    });
    expect(costDifference(null, { amount: 0.1, currency: 'USD' })).toBeNull();
    expect(costDifference({ amount: 0.1, currency: 'EUR' }, { amount: 0.1, currency: 'USD' })).toBeNull();
  });
});
