import { type KeyboardEvent, useId, useRef, useState } from 'react';
import type { Bank } from '../../api/page-types.ts';
import { pagesApi } from '../../api/pages-api.ts';
import { useLoad } from '../../api/use-load.ts';
import { bankName } from '../../components/BankLogo.tsx';
import { Skeleton } from '../../components/Skeleton.tsx';
import { useDebounced } from '../../components/use-debounced.ts';
import { countryName } from '../../format/locale.ts';
import { BankListbox } from './BankListbox.tsx';

/** Long enough to skip a request per keystroke, short enough to feel live. */
const SEARCH_DELAY_MS = 250;
/** The banks list's largest page; past it the customer narrows down by searching. */
const PAGE_SIZE = 100;

interface BankPickerProps {
  token: string;
  countries: string[];
  defaultCountry: string;
  choosing: boolean;
  onChoose: (bank: Bank) => void;
}

export const BankPicker = ({ token, countries, defaultCountry, choosing, onChoose }: BankPickerProps) => {
  const ids = useId();
  const [country, setCountry] = useState(defaultCountry);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<Bank | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLDivElement>(null);

  const query = useDebounced(search.trim(), SEARCH_DELAY_MS);
  const resultKey = `${country}|${query}`;
  const { result, reload } = useLoad(
    (signal) =>
      pagesApi.hostedBanks(
        { token, country, ...(query ? { search: query } : {}), page: 1, limit: PAGE_SIZE },
        signal,
      ),
    resultKey,
    { keepPrevious: true },
  );

  const onSearchKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'ArrowDown') return;
    const option = listRef.current?.querySelector<HTMLElement>('[tabindex="0"]');
    if (option) {
      event.preventDefault();
      option.focus();
    }
  };

  return (
    <section className="picker" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`} className="subheading">
        Choose your bank
      </h2>
      <div className="picker__controls">
        <div className="field field--country">
          <label htmlFor={`${ids}-country`}>Country</label>
          <select id={`${ids}-country`} value={country} onChange={(event) => setCountry(event.target.value)}>
            {countries.map((code) => (
              <option key={code} value={code}>
                {countryName(code)}
              </option>
            ))}
          </select>
        </div>
        <div className="field field--search">
          <label htmlFor={`${ids}-search`}>Search banks</label>
          <input
            id={`${ids}-search`}
            ref={searchRef}
            type="search"
            autoComplete="off"
            spellCheck={false}
            placeholder="Bank name"
            aria-describedby={`${ids}-count`}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            onKeyDown={onSearchKeyDown}
          />
        </div>
      </div>

      <p id={`${ids}-count`} className="picker__count" role="status">
        {result.state === 'ready' && !result.stale
          ? countText(result.data.banks.length, result.data.pagination.total, query)
          : result.state !== 'failed'
            ? 'Loading banks…'
            : ''}
      </p>

      <div
        className={`picker__results${result.state === 'ready' && result.stale ? ' picker__results--stale' : ''}`}
        aria-busy={result.state === 'loading' || (result.state === 'ready' && result.stale)}
      >
        {result.state === 'loading' ? (
          <div className="bank-list" aria-hidden="true">
            {['a', 'b', 'c', 'd', 'e'].map((row) => (
              <div key={row} className="bank-option">
                <Skeleton className="bank-logo" />
                <Skeleton className="skeleton--w60" />
              </div>
            ))}
          </div>
        ) : result.state === 'failed' ? (
          <div className="picker__problem" role="alert">
            <p>
              {result.error.kind === 'UNREACHABLE'
                ? 'We can’t reach the payment service to list banks.'
                : 'The list of banks could not be loaded.'}
            </p>
            <button type="button" className="button" onClick={reload}>
              Try again
            </button>
          </div>
        ) : result.data.banks.length === 0 ? (
          <p className="picker__empty">
            {query ? `No bank in ${countryName(country)} matches “${query}”.` : 'No banks available here.'}
          </p>
        ) : (
          <BankListbox
            key={result.key}
            banks={result.data.banks}
            selectedId={selected?.id ?? null}
            onSelect={setSelected}
            onLeaveTop={() => searchRef.current?.focus()}
            listRef={listRef}
            labelledBy={`${ids}-title`}
          />
        )}
      </div>

      <button
        type="button"
        className="button button--primary button--block picker__continue"
        disabled={!selected || choosing}
        onClick={() => selected && onChoose(selected)}
      >
        {selected
          ? choosing
            ? `Opening ${bankName(selected)}…`
            : `Continue to ${bankName(selected)}`
          : 'Select a bank to continue'}
      </button>
    </section>
  );
};

const countText = (shown: number, total: number, query: string): string => {
  if (total === 0) return 'No banks found';
  if (shown < total) return `Showing ${shown} of ${total} banks: search to find yours`;
  const banks = total === 1 ? '1 bank' : `${total} banks`;
  return query ? `${banks} found` : banks;
};

/** The picker's shape while the payment loads. */
export const PickerSkeleton = () => (
  <div className="picker" aria-hidden="true">
    <p className="subheading">
      <Skeleton className="skeleton--w40" />
    </p>
    <div className="picker__controls">
      {['field--country', 'field--search'].map((field) => (
        <div className={`field ${field}`} key={field}>
          <span className="field__label">
            <Skeleton className="skeleton--w30" />
          </span>
          <span className="skeleton skeleton--input" />
        </div>
      ))}
    </div>
    <p className="picker__count" />
    <div className="picker__results" />
    <span className="skeleton skeleton--button" />
  </div>
);
