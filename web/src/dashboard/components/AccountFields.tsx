import { TextField } from './TextField.tsx';

export type AccountKind = 'uk' | 'iban';

interface AccountFieldsProps {
  /** A prefix unique on the page, for the radio group's name. */
  name: string;
  kind: AccountKind;
  onKind: (kind: AccountKind) => void;
  sortCode: string;
  onSortCode: (value: string) => void;
  accountNumber: string;
  onAccountNumber: (value: string) => void;
  iban: string;
  onIban: (value: string) => void;
  /** The server's message for a field of the account (`sortCode`, `accountNumber`, `iban`). */
  error: (field: 'sortCode' | 'accountNumber' | 'iban') => string | undefined;
}

/**
 * A UK account (sort code and number) or an IBAN, as the create contract's `toAccount` takes it:
 * New payment's payee and a saved payee account are entered the same way.
 */
export const AccountFields = (props: AccountFieldsProps) => (
  <>
    <div className="choices choices--inline">
      <label className="choice">
        <input
          type="radio"
          name={`${props.name}-kind`}
          checked={props.kind === 'uk'}
          onChange={() => props.onKind('uk')}
        />
        <span>UK account</span>
      </label>
      <label className="choice">
        <input
          type="radio"
          name={`${props.name}-kind`}
          checked={props.kind === 'iban'}
          onChange={() => props.onKind('iban')}
        />
        <span>International (IBAN)</span>
      </label>
    </div>
    {props.kind === 'uk' ? (
      <div className="new-payment__account">
        <TextField
          label="Sort code"
          inputMode="numeric"
          placeholder="12-34-56"
          value={props.sortCode}
          maxLength={8}
          onChange={(event) => props.onSortCode(event.target.value)}
          error={props.error('sortCode')}
          required
        />
        <TextField
          label="Account number"
          inputMode="numeric"
          value={props.accountNumber}
          maxLength={34}
          onChange={(event) => props.onAccountNumber(event.target.value)}
          error={props.error('accountNumber')}
          required
        />
      </div>
    ) : (
      <TextField
        label="IBAN"
        autoCapitalize="characters"
        spellCheck={false}
        value={props.iban}
        maxLength={42}
        onChange={(event) => props.onIban(event.target.value)}
        error={props.error('iban')}
        required
      />
    )}
  </>
);
