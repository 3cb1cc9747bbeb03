import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { AuthContext } from '../../../platform/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../../platform/config/config';
import { ApiError, ErrorCode, validationEntry } from '../../../platform/errors/api-error';
import { cleanFilename, CreateDocumentsCommand, StagedFile } from '../services/create-documents.command';

/** A multipart upload turned into plain data: the staged files and the form fields. */
export interface ReceivedUpload {
  files: StagedFile[];
  fields: Record<string, string>;
}

/** Multipart part shape of @fastify/multipart. */
interface Part {
  type: 'file' | 'field';
  fieldname: string;
  filename?: string;
  file?: Readable & { truncated?: boolean };
  value?: unknown;
}

/**
 * The HTTP side of document creation: reads a multipart body and stages each file through the
 * command as it arrives (the size limit is enforced while streaming), so the services and the
 * command never see the request.
 */
@Injectable()
export class UploadRequestReader {
  constructor(
    private readonly command: CreateDocumentsCommand,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get maxBulkFiles(): number {
    return this.config.uploads.maxBulkFiles;
  }

  async read(auth: AuthContext, request: FastifyRequest, maxFiles: number): Promise<ReceivedUpload> {
    const { maxFileBytes } = this.config.uploads;
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > maxFiles * (maxFileBytes + 64 * 1024)) {
      throw new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `Request body is too large: at most ${maxFiles} file(s) of ${maxFileBytes} bytes`);
    }
    if (!request.isMultipart()) {
      throw new ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Send the file as multipart/form-data');
    }
    const received: ReceivedUpload = { files: [], fields: {} };
    try {
      for await (const part of request.parts() as AsyncIterable<Part>) {
        if (part.type === 'field') {
          const value = String(part.value ?? '');
          // as in a JSON body: a NUL cannot be stored in text
          if (value.includes('\u0000'))
            throw ApiError.validation([
              validationEntry('body', [part.fieldname], 'must not contain the NUL character (\\u0000)', 'value_error.str.nul'),
            ]);
          received.fields[part.fieldname] = value;
          continue;
        }
        const filename = cleanFilename(part.filename);
        if (received.files.length >= maxFiles) {
          part.file!.resume();
          received.files.push({
            filename,
            label: null,
            typeHint: null,
            currency: null,
            stored: null,
            mimeType: null,
            error: { code: 'TOO_MANY_FILES', detail: `At most ${maxFiles} files per request` },
          });
          continue;
        }
        received.files.push(await this.command.stage(auth, { filename, stream: part.file! }));
      }
    } catch (err) {
      await this.command.discard(received.files);
      if (err instanceof ApiError) throw err;
      throw new ApiError(ErrorCode.VALIDATION_ERROR, `Malformed multipart body: ${(err as Error).message}`, [], 400);
    }
    return received;
  }
}
