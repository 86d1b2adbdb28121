import { type KeyboardEvent, type Ref, useState } from 'react';
import type { Bank } from '../../api/page-types.ts';
import { BankLogo, bankName } from '../../components/BankLogo.tsx';

interface BankListboxProps {
  banks: Bank[];
  selectedId: string | null;
  onSelect: (bank: Bank) => void;
  /** Arrow up from the first bank: back to the search field. */
  onLeaveTop: () => void;
  listRef: Ref<HTMLDivElement>;
  labelledBy: string;
}

export const optionId = (bank: Bank) => `bank-option-${bank.id}`;

/**
 * ARIA listbox with a roving tab stop: Tab enters the list once, arrows, Home and End move,
 * Enter or Space selects. The tab stop sits on the selected bank when it is in the list.
 */
export const BankListbox = ({
  banks,
  selectedId,
  onSelect,
  onLeaveTop,
  listRef,
  labelledBy,
}: BankListboxProps) => {
  const selectedIndex = banks.findIndex((bank) => bank.id === selectedId);
  // The parent keys this list by its query, so each result set starts on the selection or the top.
  const [active, setActive] = useState(Math.max(selectedIndex, 0));
  const current = Math.min(active, banks.length - 1);

  const focusOption = (index: number, list: HTMLElement) => {
    const bank = banks[index];
    if (!bank) return;
    setActive(index);
    list.ownerDocument.getElementById(optionId(bank))?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const list = event.currentTarget;
    const last = banks.length - 1;
    switch (event.key) {
      case 'ArrowDown':
        focusOption(Math.min(current + 1, last), list);
        break;
      case 'ArrowUp':
        if (current === 0) onLeaveTop();
        else focusOption(current - 1, list);
        break;
      case 'Home':
        focusOption(0, list);
        break;
      case 'End':
        focusOption(last, list);
        break;
      case 'Enter':
      case ' ': {
        const bank = banks[current];
        if (bank?.active) onSelect(bank);
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  };

  return (
    <div
      className="bank-list"
      role="listbox"
      aria-labelledby={labelledBy}
      ref={listRef}
      onKeyDown={onKeyDown}
    >
      {banks.map((bank, index) => {
        const selected = bank.id === selectedId;
        return (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox handles keys for all its options
          <div
            key={bank.id}
            id={optionId(bank)}
            role="option"
            aria-selected={selected}
            aria-disabled={bank.active ? undefined : true}
            tabIndex={index === current ? 0 : -1}
            className="bank-option"
            onClick={() => {
              setActive(index);
              if (bank.active) onSelect(bank);
            }}
          >
            <BankLogo bank={bank} />
            <span className="bank-option__name">
              {bankName(bank)}
              {bank.active ? null : <span className="bank-option__note"> · unavailable</span>}
            </span>
            <span className="bank-option__check" aria-hidden="true">
              {selected ? '✓' : ''}
            </span>
          </div>
        );
      })}
    </div>
  );
};
