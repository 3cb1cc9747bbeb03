import type { CrmProviderName } from '../crm.entities';
import { CrmHttp } from './crm-http';
import { CrmProvider } from './crm-provider';
import { CustomAdapter, CustomCredentials } from './custom.adapter';
import { HubspotAdapter, HubspotCredentials } from './hubspot.adapter';
import { PipedriveAdapter, PipedriveCredentials } from './pipedrive.adapter';
import { SalesforceAdapter, SalesforceCredentials } from './salesforce.adapter';

/** Credential keys per provider: required, then optional (anything else is refused). */
export const CREDENTIAL_KEYS: Record<CrmProviderName, { required: string[]; optional: string[]; urls: string[] }> = {
  salesforce: {
    required: ['client_id', 'client_secret', 'refresh_token', 'instance_url'],
    optional: ['organization_id'],
    urls: ['instance_url'],
  },
  hubspot: { required: ['access_token'], optional: ['client_secret', 'base_url'], urls: ['base_url'] },
  pipedrive: { required: ['api_token'], optional: ['base_url', 'deal_ref_field'], urls: ['base_url'] },
  custom: { required: ['api_key', 'base_url'], optional: [], urls: ['base_url'] },
};

export function createAdapter(provider: CrmProviderName, http: CrmHttp, credentials: Record<string, string>): CrmProvider {
  switch (provider) {
    case 'salesforce':
      return new SalesforceAdapter(http, credentials as unknown as SalesforceCredentials);
    case 'hubspot':
      return new HubspotAdapter(http, credentials as unknown as HubspotCredentials);
    case 'pipedrive':
      return new PipedriveAdapter(http, credentials as unknown as PipedriveCredentials);
    case 'custom':
      return new CustomAdapter(http, credentials as unknown as CustomCredentials);
  }
}
