import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { SEARCH_ATTRIBUTES, type SearchAttributeName } from '../platform/search-attributes';

// The typed keys workflows and the API set, derived from the one list the Temporal server registers
// (platform/search-attributes.ts): a name or a type can never differ between the two.

const SDK_TYPE = {
  Keyword: SearchAttributeType.KEYWORD,
  Text: SearchAttributeType.TEXT,
  Int: SearchAttributeType.INT,
  Double: SearchAttributeType.DOUBLE,
  Bool: SearchAttributeType.BOOL,
  Datetime: SearchAttributeType.DATETIME,
  KeywordList: SearchAttributeType.KEYWORD_LIST,
} as const;

type SdkTypeOf<N extends SearchAttributeName> = (typeof SDK_TYPE)[(typeof SEARCH_ATTRIBUTES)[N]];

export const SA = Object.fromEntries(
  Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, defineSearchAttributeKey(name, SDK_TYPE[type])]),
) as { readonly [N in SearchAttributeName]: SearchAttributeKey<SdkTypeOf<N>> };
