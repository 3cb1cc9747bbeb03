import { AUTH_ENTITIES } from './modules/auth/auth.entities';
import { COLLABORATION_ENTITIES } from './modules/collaboration/collaboration.entities';
import { CRM_ENTITIES } from './modules/crm/crm.entities';
import { INGEST_ENTITIES } from './modules/ingest/ingest.entities';
import { KEYS_ENTITIES } from './modules/keys/keys.entities';
import { PIPELINE_ENTITIES } from './modules/pipeline/entities';
import { RULESETS_ENTITIES } from './modules/rulesets/rulesets.entities';
import { LENDERS_ENTITIES } from './modules/lenders/lenders.entities';
import { SHARES_ENTITIES } from './modules/shares/shares.entities';
import { WEBHOOKS_ENTITIES } from './modules/webhooks/webhooks.entities';
import { PLATFORM_ENTITIES } from './platform/database/platform-entities';

/**
 * Every entity of the server, for MikroORM discovery (explicit: works compiled, in jest and
 * bundled): each module exports its own list, the composition root passes them all to `openOrm`.
 */
export const ENTITIES = [
  ...PLATFORM_ENTITIES,
  ...AUTH_ENTITIES,
  ...KEYS_ENTITIES,
  ...PIPELINE_ENTITIES,
  ...RULESETS_ENTITIES,
  ...LENDERS_ENTITIES,
  ...WEBHOOKS_ENTITIES,
  ...SHARES_ENTITIES,
  ...CRM_ENTITIES,
  ...COLLABORATION_ENTITIES,
  ...INGEST_ENTITIES,
];
