/**
 * States of Aries RFC 0509 (action-menu 1.0). Responder: null -> preparing-root-menu (a
 * menu-request came) -> awaiting-selection (menu sent) -> done (perform received). Requester:
 * null -> awaiting-root-menu (menu-request sent) -> preparing-selection (menu received) -> done
 * (perform sent). A new menu or menu-request restarts the walk; a problem report clears it (null).
 */
export enum ActionMenuState {
  Null = 'null',
  AwaitingRootMenu = 'awaiting-root-menu',
  PreparingRootMenu = 'preparing-root-menu',
  PreparingSelection = 'preparing-selection',
  AwaitingSelection = 'awaiting-selection',
  Done = 'done',
}
