import { useEffect, useState } from 'preact/hooks';
import { en, MessageKey } from './en';
import { zhCN } from './zh-CN';

export type Language = 'en' | 'zh-CN';
export const LANGUAGES: { id: Language; label: string }[] = [
  { id: 'en', label: 'English' },
  { id: 'zh-CN', label: '简体中文' },
];
const DICTIONARIES: Record<Language, Record<MessageKey, string>> = { en, 'zh-CN': zhCN };
const STORAGE_KEY = 'nestclaw.language';

/** The remembered choice, else the browser's first language we have (any Chinese reads 简体中文 here). */
function initialLanguage(): Language {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved === 'en' || saved === 'zh-CN') return saved;
  const preferred = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of preferred) {
    if (/^zh\b/i.test(tag)) return 'zh-CN';
    if (/^en\b/i.test(tag)) return 'en';
  }
  return 'en';
}

let current: Language = initialLanguage();
const listeners = new Set<() => void>();
document.documentElement.lang = current;

export function language(): Language {
  return current;
}

export function setLanguage(next: Language): void {
  current = next;
  localStorage.setItem(STORAGE_KEY, next);
  document.documentElement.lang = next;
  listeners.forEach((l) => l());
}

/** The string for `key` in the current language, `{name}` placeholders filled from `vars`. */
export function t(key: MessageKey, vars: Record<string, string | number> = {}): string {
  return DICTIONARIES[current][key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}

/** Re-renders the calling component when the language changes; returns the current one. */
export function useLanguage(): Language {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return current;
}
