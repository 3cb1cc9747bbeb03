/**
 * What other modules read of the pipeline's records. The pipeline's services hand out its deals
 * and documents; other modules see them through these read-only types, never through the ORM
 * entities (a lint rule keeps `entities/` and `repositories/` private to the module), so every
 * change to a deal or a document is made, and scoped, by the pipeline's own services.
 */
import type { Deal } from './entities/deal.entities';
import type { Document } from './entities/document.entities';

export type DealRecord = Readonly<Deal>;
export type DocumentRecord = Readonly<Document>;
export type { DocumentStatus } from './entities/document.entities';
/** A document still being read (neither completed nor failed). */
export { isInFlight } from './entities/document.entities';
