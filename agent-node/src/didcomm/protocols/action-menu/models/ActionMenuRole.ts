/** Roles of Aries RFC 0509 (action-menu 1.0): the requester shows the menu, the responder offers it. */
export enum ActionMenuRole {
  Requester = 'requester',
  Responder = 'responder',
}
