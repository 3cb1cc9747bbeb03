/** What a write that breaks a unique constraint throws (services catch it without importing the ORM). */
export { UniqueConstraintViolationException as UniqueViolation } from '@mikro-orm/core';
