// A Java package of three beans whose names contain one another (calc, calculator, precalc), each with
// `twice(Integer)` answering 2a, of which the remotely-enabled list names `calc` alone: what the Java
// host's own checks are tested on (java-enabled, java-mutants).
import { javaPackage, springContext } from './java-package'

const bean = (cls: string): string =>
  `package n;\npublic class ${cls} {\n  public Integer twice(Integer a) {\n    return a * 2;\n  }\n}\n`

/** Builds the package (once per process) and returns its directory. */
let built: string | null = null
export function nestedBeans(): string {
  built ??= javaPackage('nested', {
    sources: {
      'n/Calc.java': bean('Calc'),
      'n/Calculator.java': bean('Calculator'),
      'n/Precalc.java': bean('Precalc')
    },
    resources: {
      'META-INF/nested.xml': springContext({ calc: 'n.Calc', calculator: 'n.Calculator', precalc: 'n.Precalc' }, [
        'calc'
      ])
    },
    config: { applicationContext: 'META-INF/nested.xml' }
  })
  return built
}
