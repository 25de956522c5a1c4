import type { UserProfileData } from './models/UserProfile.ts'

/** Options of `UserProfileModule`. */
export interface UserProfileModuleConfigOptions {
  /**
   * This agent's own profile, sent in answer to `request-profile` and to a `profile` asking
   * `send_back_yours`. Without it such requests are reported as events only.
   */
  ownProfile?: UserProfileData
}

export class UserProfileModuleConfig {
  constructor(readonly options: UserProfileModuleConfigOptions = {}) {}

  get ownProfile(): UserProfileData | undefined {
    return this.options.ownProfile
  }
}
