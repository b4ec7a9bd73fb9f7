export { default } from '../../tsup.base.js'
