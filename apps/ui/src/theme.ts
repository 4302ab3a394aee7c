import { useEffect, useState } from 'preact/hooks';

export type Theme = 'system' | 'light' | 'dark';
const STORAGE_KEY = 'nestclaw.theme';

function saved(): Theme {
  const value = localStorage.getItem(STORAGE_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** `system` leaves the choice to prefers-color-scheme (styles.css); the others pin it with data-theme. */
function apply(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

apply(saved());

export function useTheme(): [Theme, (next: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(saved);
  useEffect(() => apply(theme), [theme]);
  return [
    theme,
    (next) => {
      localStorage.setItem(STORAGE_KEY, next);
      setTheme(next);
    },
  ];
}
