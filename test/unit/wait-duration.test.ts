// A wait step's duration: ISO 8601 PnW or PnDTnHnMnS, 1 second to 365 days.
import { parseWaitDuration } from '../../core/automations/duration';

describe('parseWaitDuration', () => {
  it.each([
    ['PT1S', 1],
    ['PT59S', 59],
    ['PT1M', 60],
    ['PT1H30M', 5400],
    ['PT36H', 129_600],
    ['P1D', 86_400],
    ['P2DT3H4M5S', 2 * 86_400 + 3 * 3600 + 4 * 60 + 5],
    ['P1W', 604_800],
    ['P52W', 52 * 604_800],
    ['P365D', 365 * 86_400],
    ['PT8760H', 365 * 86_400],
    ['P364DT23H59M60S', 365 * 86_400],
  ])('%s is %i seconds', (text, seconds) => {
    expect(parseWaitDuration(text)).toEqual({ seconds });
  });

  it.each(['PT0S', 'P0D', 'P0W', 'P366D', 'P365DT1S', 'P53W', 'PT31536001S'])('%s is out of range', (text) => {
    expect(parseWaitDuration(text)).toEqual({ problem: expect.stringContaining('1 second') });
  });

  it.each(['', 'P', 'PT', 'P1DT', '1 day', 'P1M', 'P1Y', 'P1Y2D', 'p1d', 'P1.5D', 'PT-1S', 'P1W2D', 'PT1S ', 'P1DT1D', 'T1H', 'P1H', 'PT1M1H'])(
    '%j is no duration of the accepted forms', (text) => {
      expect(parseWaitDuration(text)).toEqual({ problem: expect.stringContaining('ISO 8601') });
    },
  );
});
