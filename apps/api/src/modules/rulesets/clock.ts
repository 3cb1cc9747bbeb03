/** The clock moved to the platform (webhook retries use it too); re-exported for existing imports. */
export { Clock } from '../../platform/clock/clock';
