import type { Check } from '../check';
import { authChecks } from './auth';
import { catchUpChecks } from './catch-up';
import { connectErrorChecks } from './connect-errors';
import { connectChecks } from './connect';
import { convergenceChecks } from './convergence';
import { exactlyOnceChecks } from './exactly-once';
import { invalidMessageChecks } from './invalid-messages';
import { mutationGapChecks } from './mutation-gap';
import { optionalChecks } from './optional';
import { pushPokeChecks } from './push-poke';
import { recoveryPullChecks } from './recovery-pull';
import { recoveryPushChecks } from './recovery-push';

/** Every check, in the order the report lists them. */
export const ALL_CHECKS: readonly Check[] = [
  ...connectChecks,
  ...pushPokeChecks,
  ...exactlyOnceChecks,
  ...mutationGapChecks,
  ...connectErrorChecks,
  ...authChecks,
  ...invalidMessageChecks,
  ...catchUpChecks,
  ...recoveryPullChecks,
  ...recoveryPushChecks,
  ...convergenceChecks,
  ...optionalChecks,
];
