/** A user profile as the user-profile protocol exchanges it. */

/** A picture: inline (`base64`) or by reference (`links`), with its MIME type when known. */
export interface PictureData {
  mimeType?: string
  links?: string[]
  base64?: string
}

/**
 * The profile fields. A picture set to `null` (or `''`, as some wallets send) is cleared;
 * an absent field is unchanged.
 */
export interface UserProfileData {
  displayName?: string | null
  displayPicture?: PictureData | null
  displayIcon?: PictureData | null
  description?: string | null
  /** BCP 47 language tag. */
  preferredLanguage?: string | null
}
