/** A mounted screen: `update` re-renders it with new props, keeping what the user is doing (focus, typed text). */
export interface ScreenHandle<P> {
  update(props: P): void;
}
