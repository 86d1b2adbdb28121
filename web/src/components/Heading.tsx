import { type ReactNode, useEffect, useRef } from 'react';

interface HeadingProps {
  children: ReactNode;
  /** Move focus here when shown: a new step replaced what the customer was looking at. */
  focusOnShow?: boolean;
  id?: string;
}

/** The page's one h1. Focusable by script only, so screen readers announce a new step. */
export const Heading = ({ children, focusOnShow = false, id }: HeadingProps) => {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusOnShow) ref.current?.focus();
  }, [focusOnShow]);
  return (
    <h1 className="heading" tabIndex={-1} ref={ref} id={id}>
      {children}
    </h1>
  );
};
