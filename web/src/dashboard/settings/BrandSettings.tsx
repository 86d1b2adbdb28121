import { type ChangeEvent, type FormEvent, useId, useState } from 'react';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { FormProblem, fieldError } from '../components/FormProblem.tsx';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { useDashboardAction, useDashboardLoad } from '../session/use-dashboard-call.ts';
import { type BrandSettingsData, brandApi } from './brand-api.ts';
import './BrandSettings.css';

/** As the server checks it (organizations/brand-logo.ts): told before a large file is sent at all. */
const LOGO_MAX_BYTES = 64 * 1024;
/** The customer pages' background: the accent must have 4.5:1 against it (checked by the server). */
const PAGE_BACKGROUND = '#f3f4f7';

const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`;

const channel = (value: number) => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const luminance = (hex: string) =>
  [1, 3, 5]
    .map((at) => channel(Number.parseInt(hex.slice(at, at + 2), 16)))
    .reduce((sum, value, index) => sum + value * ([0.2126, 0.7152, 0.0722][index] ?? 0), 0);
const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

/**
 * Settings > Brand: a display name, a logo (PNG or SVG) and an accent colour for the customer
 * pages (the hosted bank picker, the Mock bank page). Shown there only once the service's
 * operator verified the organization; the server checks everything and stores nothing it refuses.
 */
export const BrandSettings = () => {
  const { result, reload } = useDashboardLoad((signal) => brandApi.brand(signal), 'settings-brand');
  return (
    <section aria-labelledby="brand-heading" className="section">
      <h2 id="brand-heading" className="subheading">
        Brand
      </h2>
      {result.state === 'loading' ? <LoadingStatus label="Loading brand…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <BrandForm stored={result.data} /> : null}
    </section>
  );
};

const BrandForm = ({ stored }: { stored: BrandSettingsData }) => {
  const id = useId();
  const [saved, setSaved] = useState(stored);
  const [displayName, setDisplayName] = useState(stored.displayName ?? '');
  const [accent, setAccent] = useState(stored.accentColor ?? '');
  const [logo, setLogo] = useState<{ base64: string; preview: string; name: string } | null>(null);
  const [removeLogo, setRemoveLogo] = useState(false);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [justSaved, setJustSaved] = useState(false);
  const { run, pending, error } = useDashboardAction(brandApi.setBrand);

  const accentValid = /^#[0-9a-fA-F]{6}$/.test(accent.trim());
  const accentRatio = accentValid ? contrast(accent.trim().toLowerCase(), PAGE_BACKGROUND) : null;
  const logoError = fileProblem ?? fieldError(error, 'logo');
  const accentError = fieldError(error, 'accentColor');
  const nameError = fieldError(error, 'displayName');

  const chooseLogo = async (event: ChangeEvent<HTMLInputElement>) => {
    setJustSaved(false);
    setFileProblem(null);
    setLogo(null);
    const file = event.target.files?.[0];
    if (!file) return;
    if (file.size > LOGO_MAX_BYTES) {
      setFileProblem(
        `The file is ${size(file.size)}: a logo may be at most ${size(LOGO_MAX_BYTES)}. Nothing was saved.`,
      );
      event.target.value = '';
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    const base64 = btoa(binary);
    // A data: URL (the dashboard's CSP allows images from 'self' and data:, not blob:); an
    // <img> never runs what an SVG might carry, and the server checks the file anyway.
    const type =
      file.type === 'image/svg+xml' || file.name.toLowerCase().endsWith('.svg')
        ? 'image/svg+xml'
        : 'image/png';
    setLogo({ base64, preview: `data:${type};base64,${base64}`, name: file.name });
    setRemoveLogo(false);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setJustSaved(false);
    // A refused file was never held: the stored logo stays, the rest is saved.
    setFileProblem(null);
    const answer = await run({
      displayName: displayName.trim() === '' ? null : displayName.trim(),
      accentColor: accent.trim() === '' ? null : accent.trim(),
      ...(logo ? { logo: logo.base64 } : removeLogo ? { logo: null } : {}),
    });
    if (answer.ok) {
      setSaved(answer.value);
      setLogo(null);
      setRemoveLogo(false);
      setJustSaved(true);
    }
  };

  const described = (field: string, problem: string | undefined | null) =>
    `${id}-${field}-hint${problem ? ` ${id}-${field}-error` : ''}`;

  return (
    <form onSubmit={submit} noValidate data-testid="brand-form">
      <p
        className={saved.verified ? 'field__hint' : 'notice-line brand-settings__status'}
        data-testid="brand-status"
      >
        {saved.verified
          ? 'Your organization is verified: your customer pages show this brand.'
          : 'Your customer pages show this brand once the service’s operator has verified your organization. Until then they show the service’s own look and your organization’s name.'}
      </p>
      <div className="field">
        <label htmlFor={`${id}-name`}>Display name (optional)</label>
        <input
          id={`${id}-name`}
          maxLength={60}
          value={displayName}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={described('name', nameError)}
          onChange={(event) => {
            setDisplayName(event.target.value);
            setJustSaved(false);
          }}
        />
        <p id={`${id}-name-hint`} className="field__hint">
          What your customers read at the top of the page; your organization’s name when empty.
        </p>
        {nameError ? (
          <p id={`${id}-name-error`} className="field__error">
            {nameError}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${id}-logo`}>Logo (PNG or SVG, at most 64 KB)</label>
        {logo || (saved.logoUrl && saved.verified && !removeLogo) ? (
          <img
            className="brand-settings__logo"
            src={logo?.preview ?? saved.logoUrl ?? ''}
            alt={logo ? `The logo you chose, ${logo.name}` : 'Your current logo'}
            height={48}
          />
        ) : null}
        <input
          id={`${id}-logo`}
          type="file"
          accept="image/png,image/svg+xml,.png,.svg"
          aria-invalid={logoError ? true : undefined}
          aria-describedby={described('logo', logoError)}
          onChange={chooseLogo}
        />
        <p id={`${id}-logo-hint`} className="field__hint">
          {saved.logoUrl ? 'A logo is stored: choose a file to replace it. ' : ''}
          An SVG may only draw: no scripts, links or anything loaded from elsewhere.
        </p>
        {saved.logoUrl ? (
          <label className="brand-settings__remove">
            <input
              type="checkbox"
              checked={removeLogo}
              onChange={(event) => setRemoveLogo(event.target.checked)}
            />{' '}
            Remove the logo
          </label>
        ) : null}
        {logoError ? (
          <p id={`${id}-logo-error`} className="field__error" role="alert">
            {logoError}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${id}-accent`}>Accent colour (optional, as #rrggbb)</label>
        <input
          id={`${id}-accent`}
          value={accent}
          placeholder="#0b57d0"
          spellCheck={false}
          autoCapitalize="off"
          aria-invalid={accentError ? true : undefined}
          aria-describedby={described('accent', accentError)}
          onChange={(event) => {
            setAccent(event.target.value);
            setJustSaved(false);
          }}
        />
        <p id={`${id}-accent-hint`} className="field__hint">
          Buttons and links on your pages. It needs a contrast of at least 4.5:1 against the page so that
          everyone can read it
          {accentRatio !== null
            ? `: this one has ${accentRatio.toFixed(1)}:1${accentRatio < 4.5 ? ', too light' : ''}`
            : ''}
          .
        </p>
        {accentError ? (
          <p id={`${id}-accent-error`} className="field__error">
            {accentError}
          </p>
        ) : null}
      </div>
      <FormProblem error={error} fields={['displayName', 'logo', 'accentColor']} />
      <p role="status" className={justSaved ? 'field__hint' : 'visually-hidden'}>
        {justSaved ? 'Brand saved.' : ''}
      </p>
      <button type="submit" className="button button--primary" disabled={pending}>
        {pending ? 'Saving…' : 'Save brand'}
      </button>
    </form>
  );
};
