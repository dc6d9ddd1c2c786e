import type { SelectionSettings } from '../catalog/selection-config-schema.js';
import { adaptiveStrategy } from './adaptive-strategy.js';
import { costStrategy } from './cost-strategy.js';
import type { SelectionStrategy } from './selection-strategy.js';
import { weightedStrategy } from './weighted-strategy.js';

/**
 * The strategy a pipeline's `selection` names (docs/concepts.md#selection-strategies). A new
 * strategy is one file and one line here (and its literal in selection-config-schema.ts).
 */
export function selectionStrategy(settings: SelectionSettings | undefined): SelectionStrategy {
  switch (settings?.strategy) {
    case 'adaptive':
      return adaptiveStrategy;
    case 'cost':
      return costStrategy(settings.minSuccessRate);
    default:
      return weightedStrategy;
  }
}
