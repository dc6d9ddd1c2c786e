import { withSignals } from '../../lambda/core/failures/failure-signals.js';
import { PROVIDER_FAMILIES } from '../../lambda/families/registry.js';

/** Every registered family's rows of the failure matrix at once: the whole matrix, for tests that walk it. */
export const ALL_FAMILY_SIGNALS = withSignals(...PROVIDER_FAMILIES.map((family) => family.signals));
