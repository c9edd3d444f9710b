import SpeechStreaming

/// The cloud side of a dialog: which protocol, with which configuration, built from the initialize and set_params
/// parameters and the dialog's own `apikey` and context.
enum StreamingSettings: Equatable {
    case dashScope(DashScopeConfiguration)
    case nls(NLSConfiguration)

    init(initParameters: InitParameters, recognition: RecognitionParameters, dialog: DialogParameters) {
        let connection = ConnectionOptions(
            finishTimeout: .milliseconds(recognition.finishTimeoutMilliseconds),
            pingInterval: recognition.fastCheck ? .seconds(1) : .seconds(5),
            responseTimeout: recognition.fastCheck ? .seconds(3) : .seconds(15),
            reconnection: recognition.reconnection ? ReconnectionPolicy(isEnabled: true) : .disabled)
        switch initParameters.wireProtocol {
        case .dashScope:
            self = .dashScope(DashScopeConfiguration(
                url: initParameters.url, apiKey: dialog.apiKey ?? initParameters.apiKey ?? "",
                workspace: nil, parameters: recognition.dashScope, context: dialog.context, connection: connection))
        case .nls:
            let flags = recognition.nlsFlags
            self = .nls(NLSConfiguration(
                url: initParameters.url, token: initParameters.token,
                appKey: initParameters.appKey == "default" ? nil : initParameters.appKey,
                format: recognition.format, sampleRate: recognition.sampleRate,
                enableIntermediateResult: flags["enable_intermediate_result"] ?? true,
                enablePunctuationPrediction: flags["enable_punctuation_prediction"] ?? true,
                enableInverseTextNormalization: flags["enable_inverse_text_normalization"] ?? true,
                maxSentenceSilenceMilliseconds: recognition.dashScope.maxSentenceSilenceMilliseconds,
                vocabularyId: recognition.dashScope.vocabularyId, customizationId: recognition.customizationId,
                speechNoiseThreshold: recognition.dashScope.speechNoiseThreshold, connection: connection))
        }
    }
}
